package minimize

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLaterReorderThatFindsNothingStopsAtHalf runs a later reorder stage
// on raft-56's shipped minimized trace, on which no move helps. Unseen fuzz
// seed 20217 showed why such a stage must not take all that remains: two
// reorder stages spent the whole step budget on moves of a 104-delivery
// trace that all failed, and the round with four times the schedules per
// check, which takes that trace to 22 deliveries in 100,000 steps, never
// ran. A reorder stage none of whose moves helps stops at half of what
// remains and leaves the other half to the rounds.
func TestLaterReorderThatFindsNothingStopsAtHalf(t *testing.T) {
	m := stageMinimizer(t, "../examples/traces/raft-56.min.trace", 2)
	m.cfg.Steps = 80_000 // every move of this trace costs 60,053 steps in all
	before := m.snapshotBest()
	half, full := m.shareOf(0.5), m.shareOf(1)
	require.NoError(t, m.runStage(context.Background(), RoundStage(StageReorder, 3), half, m.reorderUpTo(full)))
	assert.Same(t, before, m.snapshotBest(), "no move helps")
	assert.Equal(t, half, m.limit.Load(), "the limit stays at half")
	assert.GreaterOrEqual(t, m.steps.Load(), half)
	assert.Less(t, m.steps.Load(), full, "the other half is left")
	assert.Nil(t, m.reordered, "the stage stopped before trying every move")
}

// TestReorderThatHelpsMayUseAllThatRemains: on the raft-46 local minimum
// (15 deliveries, E:6) a reorder move helps, and the stage's limit rises
// to all that remains.
func TestReorderThatHelpsMayUseAllThatRemains(t *testing.T) {
	m := stageMinimizer(t, "testdata/raft-46-local-minimum.trace", 2)
	before := m.snapshotBest()
	half, full := m.shareOf(0.5), m.shareOf(1)
	require.NoError(t, m.runStage(context.Background(), RoundStage(StageReorder, 3), half, m.reorderUpTo(full)))
	best := m.snapshotBest()
	assert.Less(t, best.Header.Deliveries+best.Header.Externals, before.Header.Deliveries+before.Header.Externals)
	assert.Equal(t, full, m.limit.Load(), "the limit rose once a move helped")
	assert.Same(t, best, m.reordered, "every move failed on the stage's last trace")
}
