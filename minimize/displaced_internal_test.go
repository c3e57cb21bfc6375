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

// TestRetargetDisplacedRetargetsTheReplacedTrace runs the
// retarget-displaced stage on raft-58a unseen fuzz seed 11434. Its second
// pass (internals-first) ended at 65 deliveries (E:13) = 78, one event
// below the main line's 64 (E:15) = 79, and replaced it; retarget took the
// second pass's trace only to 54 (E:13), a four-member route with three
// leaderships (the best trace here). The displaced trace here is the main
// line's after retarget's first moves, 60 deliveries (E:15) = 75, larger
// than the best trace: retarget's moves take it to 19 deliveries (E:12),
// raft-58a's best known size, which replaces the best trace. Without a
// displaced trace the stage does not apply.
func TestRetargetDisplacedRetargetsTheReplacedTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.2M-step stage")
	}
	displaced, _, err := record.ReadFile("testdata/raft-58a-11434-main-line.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, [2]int{60, 15}, [2]int{displaced.Header.Deliveries, displaced.Header.Externals})
	m := stageMinimizer(t, "testdata/raft-58a-11434-second-pass.trace", 2)
	best := m.snapshotBest()
	require.Equal(t, [2]int{54, 13}, [2]int{best.Header.Deliveries, best.Header.Externals})
	require.False(t, m.displaces(), "no second pass ran: nothing displaced")
	m.displaced = displaced
	require.True(t, m.displaces())
	require.NoError(t, m.runStage(context.Background(), StageRetargetDisplaced, m.steps.Load()+m.allowance(StageRetargetDisplaced), m.retargetDisplaced))
	best = m.snapshotBest()
	assert.Equal(t, [2]int{19, 12}, [2]int{best.Header.Deliveries, best.Header.Externals})
	assert.Equal(t, displaced.Header.Violation.Fingerprint, best.Header.Violation.Fingerprint)
	assert.Equal(t, int64(1223038), m.steps.Load(), "the stage's steps (1,221,550 before the hasten moves, tried last on the 19 (E:12) trace)")
	rep, err := replay.Run(context.Background(), m.sys, best)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
