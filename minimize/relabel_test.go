package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherPairTrace is the result of minimizing raft-58b's unseen fuzz seed
// 7139 before the relabel stage: 58 deliveries (E:10) for
// LogMatching(raft-1,raft-2), whose run breaks LogMatching(raft-1,raft-3)
// at step 59 already; the 8 deliveries after it only make raft-2, not
// raft-3, the victim.
const otherPairTrace = "testdata/raft-58b-other-pair.trace"

func readOtherPair(t *testing.T) (*record.Trace, *record.System) {
	t.Helper()
	tr, sys, err := record.ReadFile(otherPairTrace, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 58, tr.Header.Deliveries)
	require.Equal(t, 10, tr.Header.Externals)
	require.Equal(t, "LogMatching(raft-1,raft-2)", tr.Header.Violation.Fingerprint)
	return tr, sys
}

// firstViolation replays tr exactly and returns the step and fingerprint
// of the first violation its run reports.
func firstViolation(t *testing.T, sys *record.System, tr *record.Trace) (int, string) {
	t.Helper()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: tr.Header.Violation})
	require.NoError(t, err)
	for {
		o, err := d.Next(context.Background())
		require.NoError(t, err, "the run reports a violation before its end")
		require.Nil(t, o.Divergence)
		if o.Violation != nil {
			return o.Step, o.Violation.Fingerprint
		}
	}
}

func TestRelabelStageTurnsAnotherPairsViolationIntoTheTarget(t *testing.T) {
	tr, sys := readOtherPair(t)
	step, fp := firstViolation(t, sys, tr)
	require.Equal(t, 59, step)
	require.Equal(t, "LogMatching(raft-1,raft-3)", fp, "another pair breaks first")

	got, stage, err := minimize.RunRelabelStage(context.Background(), sys, tr, 1)
	require.NoError(t, err)
	assert.Equal(t, minimize.StageRelabel, stage)
	// The prefix up to step 59 (50 deliveries, the 10 externals), raft-2
	// and raft-3 exchanged.
	assert.Equal(t, 50, got.Header.Deliveries)
	assert.Equal(t, 10, got.Header.Externals)
	assert.Len(t, got.Events, 60)
	require.Equal(t, tr.Header.Violation.Fingerprint, got.Header.Violation.Fingerprint)

	// Exact replay reproduces the target, first of all violations, at the
	// trace's last step.
	rep, err := replay.Run(context.Background(), sys, got)
	require.NoError(t, err)
	require.True(t, rep.Reproduced)
	step, fp = firstViolation(t, sys, got)
	assert.Equal(t, 59, step)
	assert.Equal(t, "LogMatching(raft-1,raft-2)", fp)
	// The members start and get their Bootstrap in the input's order.
	for i := range 8 {
		assert.Equal(t, tr.Events[i].String(), got.Events[i].String())
	}
	// raft-3's first vote request is raft-2's now.
	assert.Equal(t, record.ActorID("raft-3"), tr.Events[13].To)
	assert.Equal(t, record.ActorID("raft-2"), got.Events[13].To)

	two, _, err := minimize.RunRelabelStage(context.Background(), sys, tr, 2)
	require.NoError(t, err)
	assert.Equal(t, encode(t, got), encode(t, two), "the same trace with 2 workers")
}

func TestRelabelStageNeedsASymmetry(t *testing.T) {
	tr, sys := readOtherPair(t)
	never := *sys
	sym := *sys.Symmetry
	sym.Holds = func(record.Options, []record.Event, record.Perm) bool { return false }
	never.Symmetry = &sym
	got, stage, err := minimize.RunRelabelStage(context.Background(), &never, tr, 1)
	require.NoError(t, err)
	assert.Empty(t, stage, "no relabelling holds: the stage does not run")
	assert.Same(t, tr, got)

	none := *sys
	none.Symmetry = nil
	got, stage, err = minimize.RunRelabelStage(context.Background(), &none, tr, 1)
	require.NoError(t, err)
	assert.Empty(t, stage)
	assert.Same(t, tr, got)
}

// TestMinimizeRelabelsTheSameForEveryWorkerCount minimizes the other-pair
// trace on a small step budget with 1 and 2 workers: a relabel call cuts
// deliveries, the result is at most 49 deliveries, and the bytes are the
// same.
func TestMinimizeRelabelsTheSameForEveryWorkerCount(t *testing.T) {
	tr, sys := readOtherPair(t)
	var out [][]byte
	for _, workers := range []int{1, 2} {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 2 * time.Minute, Steps: 400_000, Workers: workers})
		require.NoError(t, err)
		cut := 0
		for i, s := range res.Stages {
			if minimize.PassOf(s.Name) == minimize.StageRelabel {
				cut += res.Stages[i-1].Deliveries - s.Deliveries
			}
		}
		assert.Positive(t, cut, "a relabel call cut deliveries")
		assert.LessOrEqual(t, res.Trace.Header.Deliveries, 49)
		assert.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
		out = append(out, encode(t, res.Trace))
	}
	assert.Equal(t, out[0], out[1], "the same bytes for 1 and 2 workers")
}
