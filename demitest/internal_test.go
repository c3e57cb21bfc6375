package demitest

import (
	"flag"
	"os"
	"path/filepath"
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

// TestDefaultCommandFindsTheModulesBinary checks the fallback outside
// demi's module: the main package that calls cli.Main, skipping look-alikes
// (a library calling cli.Main, a test file, testdata, a nested module).
func TestDefaultCommandFindsTheModulesBinary(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("go.mod", "module example.com/counter\n")
	write("counter.go", "package counter\n\nfunc X() { cli.Main(nil) }\n")
	write("a/main_test.go", "package main\n\nfunc TestX() { cli.Main(nil) }\n")
	write("b/testdata/main.go", "package main\n\nfunc main() { cli.Main(nil) }\n")
	write("c/go.mod", "module example.com/other\n")
	write("c/main.go", "package main\n\nfunc main() { cli.Main(nil) }\n")
	t.Chdir(root)
	assert.Equal(t, "go run "+demiModule+"/cmd/demi", defaultCommand(), "no binary of the module's own")

	write("cmd/counter/main.go", "// Command counter is demi with the counter.\npackage main\n\nimport \"github.com/demi-project/demi/cli\"\n\nfunc main() { cli.Main(nil) }\n")
	assert.Equal(t, "go run ./cmd/counter", defaultCommand())
	t.Chdir(filepath.Join(root, "a"))
	assert.Equal(t, "go run ./cmd/counter", defaultCommand(), "from a package's directory, as go test runs")
}
