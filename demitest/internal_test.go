package demitest

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlagsOverrideOnlyWhatIsGiven(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := registerFlags(fs)
	require.NoError(t, fs.Parse([]string{"-demi.seed=7", "-demi.minimize=false", "-demi.trace=x.trace", "-demi.prune"}))
	c := defaults()
	c.runs, c.budget = 5, time.Second // as Options set them
	f.override(fs, &c)
	assert.Equal(t, uint64(7), c.seed)
	assert.False(t, c.minimize)
	assert.Equal(t, "x.trace", c.trace)
	assert.True(t, c.prune)
	assert.Equal(t, 5, c.runs, "not given: the option stands")
	assert.Equal(t, time.Second, c.budget)

	require.NoError(t, fs.Parse([]string{"-demi.runs=9", "-demi.budget=3s"}))
	f.override(fs, &c)
	assert.Equal(t, 9, c.runs)
	assert.Equal(t, 3*time.Second, c.budget)
}

func TestFlagsBeforeParsingChangeNothing(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := registerFlags(fs)
	c := defaults()
	c.seed = 3
	f.override(fs, &c)
	assert.Equal(t, uint64(3), c.seed)
}

func TestTestDirAndRunPattern(t *testing.T) {
	assert.Equal(t, "TestRaft", testDir("TestRaft"))
	assert.Equal(t, "TestRaft/five_members", testDir("TestRaft/five_members"))
	assert.Equal(t, "TestX/a_b_c/_..", testDir("TestX/a:b*c/.."))
	assert.Equal(t, "^TestRaft$", runPattern("TestRaft"))
	assert.Equal(t, `^TestRaft$/^five\.members\(x\)$`, runPattern("TestRaft/five.members(x)"))
}
