package raft_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/internal/tbtest"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRaftUnderDemi is how Raft's own test suite uses demi: fuzz the
// correct protocol inside `go test` (with crash-restarts and partitions)
// and check the traces kept under testdata/demi/TestRaftUnderDemi/ first.
func TestRaftUnderDemi(t *testing.T) {
	demitest.Check(t, raft.System(),
		demitest.Options(record.Options{raft.OptRestartWeight: "5", raft.OptPartitionWeight: "5"}),
		demitest.Fuzz(record.FuzzConfig{MaxSteps: 1000}), demitest.Runs(30))
}

// TestTheRegressionLoop shows the whole loop on the Raft example: with the
// raft-45 switch on, the test fails and keeps a failing and a minimized
// trace; it keeps failing while the bug is there; with the switch off (the
// "fix"), the same test passes and reports the kept traces as fixed, and
// -demi.prune deletes them.
func TestTheRegressionLoop(t *testing.T) {
	dir := t.TempDir()
	fuzz := demitest.Fuzz(record.FuzzConfig{MaxSteps: 200})
	sys := raft.System()

	// The bug is on: fuzzing finds it.
	buggy := tbtest.New(t, "TestElections")
	res := demitest.Check(buggy, sys, demitest.Bugs(raft.Bug45), fuzz, demitest.Dir(dir))
	require.True(t, buggy.Failed(), "the test fails")
	require.Len(t, buggy.Errors(), 1)
	require.NotEmpty(t, res.Minimized)
	msg := buggy.Errors()[0]
	assert.Regexp(t, `^demi: fuzzing raft found a violation at seed \d+ \(run \d+\)\n`+
		`violation ElectionSafety\(raft-\d,raft-\d\)\n  raft-\d and raft-\d were both leader in term \d+\n`+
		`failing trace:   `+filepath.Join(dir, `seed-\d+\.trace`)+` \(\d+ deliveries, \d+ externals\)\n`+
		`minimized trace: `+filepath.Join(dir, `seed-\d+\.min\.trace`)+` \(\d+ deliveries, \d+ externals\)\n\n`+
		`prelude\n`, msg)
	assert.Contains(t, msg, "\nround 1\n", "the round view")
	assert.Contains(t, msg, "\n  replay:  go run ./cmd/demi replay "+res.Minimized+"\n")
	assert.Contains(t, msg, "\n  step:    go run ./cmd/demi replay --step "+res.Minimized+"\n")
	assert.Contains(t, msg, "\n  re-run:  go test ./examples/raft -run '^TestElections$' -demi.seed=")
	assert.Equal(t, "ElectionSafety", res.Violation.Fingerprint[:len("ElectionSafety")])
	golden(t, "failure", asIfKept(msg, dir))
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{res.Failing, res.Minimized}, files)

	// The minimized trace is smaller and replays exactly.
	failing, _, err := record.ReadFile(res.Failing, record.NewCatalog(sys))
	require.NoError(t, err)
	min, _, err := record.ReadFile(res.Minimized, record.NewCatalog(sys))
	require.NoError(t, err)
	assert.Less(t, min.Header.Deliveries, failing.Header.Deliveries)
	rep, err := replay.Run(context.Background(), sys, min)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	// Still buggy: the kept traces fail the test before any fuzzing.
	still := tbtest.New(t, "TestElections")
	res = demitest.Check(still, sys, demitest.Bugs(raft.Bug45), fuzz, demitest.Dir(dir))
	require.Len(t, still.Errors(), 2)
	assert.Equal(t, []demitest.KeptOutcome{demitest.Reproduces, demitest.Reproduces}, outcomes(res))
	assert.Zero(t, res.Runs, "no fuzzing after a kept trace failed")
	assert.Regexp(t, `^demi: kept trace .*seed-\d+\.min\.trace still reproduces its violation exactly\n`, still.Errors()[0])
	golden(t, "still", asIfKept(still.Errors()[0], dir))

	// Fixed: the switch off, the same test passes and says so.
	fixed := tbtest.New(t, "TestElections")
	res = demitest.Check(fixed, sys, fuzz, demitest.Dir(dir), demitest.Runs(20))
	assert.False(t, fixed.Failed(), fixed.Errors())
	assert.Equal(t, []demitest.KeptOutcome{demitest.Fixed, demitest.Fixed}, outcomes(res))
	assert.Equal(t, 20, res.Runs)
	logs := fixed.Logs()
	require.Len(t, logs, 3)
	assert.Regexp(t, `^demi: kept trace .*seed-\d+\.min\.trace: fixed: ElectionSafety\(raft-\d,raft-\d\) is no longer reachable \(.*; none of the \d+ schedules (tried near it|within reach) reaches it\); delete it, or run with -demi.prune$`, logs[0])
	golden(t, "fixed", asIfKept(logs[0]+"\n"+logs[1], dir))
	assert.Equal(t, "demi: raft: no violation in 20 fuzzing runs from seed 1", logs[2][:len("demi: raft: no violation in 20 fuzzing runs from seed 1")])

	// -demi.prune deletes them.
	pruned := tbtest.New(t, "TestElections")
	res = demitest.Check(pruned, sys, fuzz, demitest.Dir(dir), demitest.Runs(0), demitest.Prune(), demitest.CheckBudget(20_000))
	assert.False(t, pruned.Failed(), pruned.Errors())
	require.Len(t, res.Kept, 2)
	assert.True(t, res.Kept[0].Pruned)
	assert.True(t, res.Kept[1].Pruned)
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left)
}

func outcomes(r *demitest.Result) []demitest.KeptOutcome {
	var out []demitest.KeptOutcome
	for _, k := range r.Kept {
		out = append(out, k.Outcome)
	}
	return out
}
