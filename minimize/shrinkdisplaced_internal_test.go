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

// displacedMinimizer returns a stage minimizer for raft-56 seed 30214 as
// the rounds leave it: the best trace is the 25-delivery (E:8) result of
// internals-first, whose Bootstrap lists [raft-2 raft-3 raft-4] leave out
// raft-1, one of the two leaders the violation names; the trace it
// displaced is the main line's 29 deliveries (E:8), with four-member
// lists (also the input: the lists may keep more than half of its four).
func displacedMinimizer(t *testing.T, workers int) (*record.System, *minimizer) {
	t.Helper()
	cat := record.NewCatalog(raft.System())
	d, sys, err := record.ReadFile("testdata/raft-56-30214-displaced.trace", cat)
	require.NoError(t, err)
	best, _, err := record.ReadFile("testdata/raft-56-30214-outsider.trace", cat)
	require.NoError(t, err)
	m, err := newStageMinimizer(sys, d, best, d.Header.OptionMap(), workers)
	require.NoError(t, err)
	m.maxComponents = map[string]int{"Bootstrap": 4}
	m.displaced = d
	return sys, m
}

// TestLeavesOutNamedSeesTheOutsiderLeader checks which traces leave a
// named actor out of their configuration, and that the group edits that
// keep the named actors are the drops of raft-4 and raft-2 only.
func TestLeavesOutNamedSeesTheOutsiderLeader(t *testing.T) {
	_, m := displacedMinimizer(t, 1)
	assert.True(t, m.leavesOutNamed(m.snapshotBest()), "[raft-2 raft-3 raft-4] leaves out raft-1")
	assert.False(t, m.leavesOutNamed(m.displaced), "four-member lists name raft-1 and raft-3")
	all, _ := m.groupEdits(m.displaced, true, false)
	keep, _ := m.groupEdits(m.displaced, true, true)
	assert.Len(t, all, 4)
	assert.Len(t, keep, 2, "raft-4 and raft-2 dropped, not the named raft-3 or raft-1")
	assert.True(t, m.shrinkDisplaces(context.Background()))
	m.displaced = nil
	assert.False(t, m.shrinkDisplaces(context.Background()), "nothing displaced")
}

// TestShrinkSearchDisplacedListsTheNamedLeader runs the stage on the
// 30214 fixtures: the displaced trace's drop of raft-2, followed and
// searched, lists both named leaders and reaches 16 deliveries (E:6),
// where the best trace's own configuration has nothing of 25 events or
// fewer (demi optimal --subsets). With 1 and 2 workers: the same trace
// and steps. The find comes after 4.3 M steps, more than shrink-search's
// allowance of a tenth of the step budget: the stage runs on what remains
// of the step budget.
func TestShrinkSearchDisplacedListsTheNamedLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of the stage, 4.3 M steps each")
	}
	var steps [2]int64
	var best [2]*record.Trace
	var sys *record.System
	for w := 1; w <= 2; w++ {
		s, m := displacedMinimizer(t, w)
		sys = s
		m.limit.Store(m.allowance(StageShrinkSearch) * 3)
		require.NoError(t, m.shrinkSearchDisplaced(context.Background()))
		require.NoError(t, m.thenRemovals(context.Background()))
		best[w-1], steps[w-1] = m.snapshotBest(), m.steps.Load()
	}
	assert.Equal(t, [2]int{16, 6}, [2]int{best[0].Header.Deliveries, best[0].Header.Externals})
	assert.Equal(t, best[0].Events, best[1].Events, "the same trace with 1 and 2 workers")
	assert.Equal(t, steps[0], steps[1], "the same steps")
	assert.Equal(t, "ElectionSafety(raft-1,raft-3)", best[0].Header.Violation.Fingerprint)
	for _, e := range best[0].Events {
		if b, ok := e.Msg.(raft.Bootstrap); ok {
			assert.Equal(t, []record.ActorID{"raft-1", "raft-3", "raft-4"}, b.Members)
		}
	}
	rep, err := replay.Run(context.Background(), sys, best[0])
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
