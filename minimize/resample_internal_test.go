package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resampleStage runs the resample stage alone on the trace at path (as
// input and best trace), with workers checkers and the stage's
// allowance, and returns the system, the best trace after it and the
// steps it ran.
func resampleStage(t *testing.T, path string, workers int, symmetry bool) (*record.System, *record.Trace, int64) {
	t.Helper()
	tr, sys, err := record.ReadFile(path, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	m, err := newStageMinimizer(sys, tr, tr, tr.Header.OptionMap(), workers)
	require.NoError(t, err)
	if !symmetry {
		withoutSymmetry(m)
	}
	m.limit.Store(m.allowance(StageResample))
	require.NoError(t, m.runStage(context.Background(), StageResample, m.allowance(StageResample), m.resample))
	// The driver goes back to the removals after a success.
	if m.snapshotBest() != tr {
		require.NoError(t, m.thenRemovals(context.Background()))
	}
	return sys, m.snapshotBest(), m.steps.Load()
}

// TestResampleLeavesTheRoute: raft-56 unseen fuzz seed 50186 ends the
// rounds at 63 deliveries (E:10), a six-term route that no removal, move
// or capped exact search near it shortens. Random runs of its ten
// external events, stopped before 63 deliveries, end in the target's
// invariant on a route of their own; relabelled onto the target and
// re-minimized by the removal stages, that is 22 deliveries (E:8), with
// 1 and 2 workers the same trace and steps.
func TestResampleLeavesTheRoute(t *testing.T) {
	var steps [2]int64
	var best [2]*record.Trace
	var sys *record.System
	for w := 1; w <= 2; w++ {
		sys, best[w-1], steps[w-1] = resampleStage(t, "testdata/raft-56-50186-rounds.trace", w, true)
	}
	assert.Equal(t, [2]int{22, 8}, [2]int{best[0].Header.Deliveries, best[0].Header.Externals})
	assert.Equal(t, best[0].Events, best[1].Events, "the same trace with 1 and 2 workers")
	assert.Equal(t, steps[0], steps[1], "the same steps")
	assert.Equal(t, "ElectionSafety(raft-1,raft-3)", best[0].Header.Violation.Fingerprint)
	rep, err := replay.Run(context.Background(), sys, best[0])
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}

// TestResampleSpendsItsAllowance: on raft-58b's shipped minimized trace,
// the proven optimum (9 deliveries, E:8), no run is shorter: the stage
// keeps the trace and ends on its allowance, every run counted.
func TestResampleSpendsItsAllowance(t *testing.T) {
	tr, _, err := record.ReadFile("../examples/traces/raft-58b.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	_, best, steps := resampleStage(t, "../examples/traces/raft-58b.min.trace", 1, true)
	assert.Equal(t, tr.Events, best.Events)
	allowance := int64(float64(DefaultSteps) * lookupPass(StageResample).Share)
	assert.GreaterOrEqual(t, steps, int64(allowance))
	assert.Less(t, steps, int64(allowance)+int64(resampleChunk*(9+8)), "one chunk of runs past the allowance at most")
}

// TestResampleWithoutSymmetry: without a symmetry only runs that end in
// the target itself count; on 50186 the first such run, re-minimized, is
// 23 deliveries (E:8), not the 22 of a relabelled one.
func TestResampleWithoutSymmetry(t *testing.T) {
	_, best, _ := resampleStage(t, "testdata/raft-56-50186-rounds.trace", 1, false)
	assert.Equal(t, [2]int{23, 8}, [2]int{best.Header.Deliveries, best.Header.Externals})
	assert.Equal(t, "ElectionSafety(raft-1,raft-3)", best.Header.Violation.Fingerprint)
}
