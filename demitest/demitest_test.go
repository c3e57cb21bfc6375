package demitest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/internal/tbtest"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func keepShipped(t *testing.T, name string) (dir, path string) {
	t.Helper()
	data, err := os.ReadFile("../examples/traces/" + name)
	require.NoError(t, err)
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return dir, path
}

func TestACorrectSystemPasses(t *testing.T) {
	r := tbtest.New(t, "TestRing")
	res := demitest.Check(r, tokenring.System(), demitest.Runs(20), demitest.Dir(t.TempDir()))
	assert.False(t, r.Failed(), r.Errors())
	assert.Equal(t, 20, res.Runs)
	assert.Nil(t, res.Violation)
	require.Len(t, r.Logs(), 1)
	assert.Regexp(t, `^demi: tokenring: no violation in 20 fuzzing runs from seed 1 \(\d+\.\ds\)$`, r.Logs()[0])
}

// A kept trace whose exact replay diverges after a change (here raft-58a
// switched on: a new leader sends itself a message, so message IDs shift)
// but whose violation is still reachable fails the test and is replaced by
// the schedule that reaches it.
func TestAStillReachableTraceIsReplacedByTheNewSchedule(t *testing.T) {
	dir, path := keepShipped(t, "raft-45.min.trace")
	sys := raft.System()
	r := tbtest.New(t, "TestRaft")
	res := demitest.Check(r, sys, demitest.Bugs(raft.Bug45, raft.Bug58a), demitest.Dir(dir))
	require.Len(t, res.Kept, 1)
	assert.Equal(t, demitest.StillReachable, res.Kept[0].Outcome)
	assert.Equal(t, 1, res.Kept[0].Schedules)
	assert.Zero(t, res.Runs, "no fuzzing after a failure")
	require.Len(t, r.Errors(), 1)
	assert.Regexp(t, `^demi: kept trace `+path+` no longer replays exactly \(diverged at event 19: .*\),\n`+
		`but a schedule near it still reaches its violation ElectionSafety\(raft-1,raft-2\) \(found in 1 schedules\);\n`+
		`the trace now holds that schedule \(16 deliveries, 8 externals\)\n\nprelude\n`, r.Errors()[0])

	tr, _, err := record.ReadFile(path, record.NewCatalog(sys))
	require.NoError(t, err)
	assert.Equal(t, "true", tr.Header.OptionMap()[raft.Bug58a])
	rep, err := replay.Run(context.Background(), sys, tr)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced, "the new trace replays exactly")

	// Next run: it now reproduces exactly.
	again := tbtest.New(t, "TestRaft")
	res = demitest.Check(again, sys, demitest.Bugs(raft.Bug45, raft.Bug58a), demitest.Dir(dir))
	assert.Equal(t, demitest.Reproduces, res.Kept[0].Outcome)
	assert.True(t, again.Failed())
}

func TestTraceChecksOnlyThatTraceAndDoesNotFuzz(t *testing.T) {
	_, path := keepShipped(t, "raft-45.min.trace")
	r := tbtest.New(t, "TestRaft")
	res := demitest.Check(r, raft.System(), demitest.Trace(path), demitest.Dir(t.TempDir()))
	assert.False(t, r.Failed(), r.Errors())
	require.Len(t, res.Kept, 1)
	assert.Equal(t, demitest.Fixed, res.Kept[0].Outcome, "the bug switch is off in this test")
	assert.Zero(t, res.Runs)
	assert.FileExists(t, path, "not pruned without -demi.prune")
}

func TestBadInputFailsTheTest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.trace"), []byte("junk"), 0o644))
	r := tbtest.New(t, "TestRing")
	res := demitest.Check(r, tokenring.System(), demitest.Dir(dir))
	require.Len(t, res.Kept, 1)
	assert.Equal(t, demitest.Broken, res.Kept[0].Outcome)
	require.Len(t, r.Errors(), 1)
	assert.Regexp(t, `^demi: kept trace .*junk\.trace: bad trace header: not a demi trace`, r.Errors()[0])

	r = tbtest.New(t, "TestRing")
	demitest.Check(r, tokenring.System(), demitest.Options(record.Options{"size": "many"}), demitest.Dir(t.TempDir()))
	assert.Equal(t, []string{`demi: option size: "many" is not an integer`}, r.Errors())

	r = tbtest.New(t, "TestRing")
	demitest.Check(r, tokenring.System(), demitest.Trace(filepath.Join(dir, "missing.trace")))
	require.Len(t, r.Errors(), 1)
	assert.Regexp(t, `^demi: -demi.trace: stat .*missing\.trace: no such file or directory$`, r.Errors()[0])
}

func TestNoMinimizeKeepsOnlyTheFailingTrace(t *testing.T) {
	dir := t.TempDir()
	r := tbtest.New(t, "TestRing")
	res := demitest.Check(r, tokenring.System(), demitest.Bugs("restore-token"), demitest.NoMinimize(),
		demitest.Fuzz(record.FuzzConfig{MaxSteps: 200}), demitest.Dir(dir))
	require.Len(t, r.Errors(), 1)
	assert.Equal(t, filepath.Join(dir, "seed-1.trace"), res.Failing)
	assert.Empty(t, res.Minimized)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{res.Failing}, files)
	msg := r.Errors()[0]
	assert.NotContains(t, msg, "minimized trace:")
	assert.Contains(t, msg, "\n  replay:  go run ./cmd/demi replay "+res.Failing+"\n")
	assert.Contains(t, msg, "\n  show:    go run ./cmd/demi show "+res.Failing+"\n", "no rounds in the token ring")
}

func TestCommandNamesTheUsersBinary(t *testing.T) {
	r := tbtest.New(t, "TestRing")
	res := demitest.Check(r, tokenring.System(), demitest.Bugs("restore-token"), demitest.NoMinimize(),
		demitest.Fuzz(record.FuzzConfig{MaxSteps: 200}), demitest.Dir(t.TempDir()), demitest.Command("go run ./cmd/ringdemi"))
	require.Len(t, r.Errors(), 1)
	assert.Contains(t, r.Errors()[0], "\n  step:    go run ./cmd/ringdemi replay --step "+res.Failing+"\n")
}

func TestTheFuzzingBudgetStopsTheRuns(t *testing.T) {
	r := tbtest.New(t, "TestRing")
	res := demitest.Check(r, tokenring.System(), demitest.Runs(1_000_000), demitest.Budget(50*time.Millisecond), demitest.Dir(t.TempDir()))
	assert.False(t, r.Failed(), r.Errors())
	assert.Less(t, res.Runs, 1_000_000)
	require.Len(t, r.Logs(), 1)
	assert.Regexp(t, `^demi: tokenring: no violation in \d+ fuzzing runs from seed 1 \(\d+\.\ds, stopped by the 50ms budget\)$`, r.Logs()[0])
}
