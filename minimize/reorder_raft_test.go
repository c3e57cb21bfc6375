package minimize_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReorderEscapesALocalMinimum minimizes a raft-46 trace on which the
// pipeline without the reorder stage ended (15 deliveries, E:6, from fuzz
// seed 23; minimized again, its removal stages stop at 14): a reorder
// move gets below, and the result is the best known size (10, E:6).
func TestReorderEscapesALocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-46-local-minimum.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 15, tr.Header.Deliveries)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, 10, res.Trace.Header.Deliveries)
	assert.Equal(t, 6, res.Trace.Header.Externals)
	// The removals stop at 14; a move is what gets below.
	tiers := map[string]minimize.Tier{}
	for _, p := range minimize.Passes() {
		tiers[p.Name] = p.Tier
	}
	for i, s := range res.Stages {
		if s.Deliveries < 14 {
			require.Positive(t, i)
			assert.Equal(t, 14, res.Stages[i-1].Deliveries, "removals alone stop here")
			assert.Equal(t, minimize.Move, tiers[minimize.PassOf(s.Name)], "a move gets below the local minimum (%s)", s.Name)
			return
		}
	}
	t.Fatal("nothing got below 14")
}

// TestLongMoveScansFinishWithinTheBudget minimizes a fresh raft-58a trace
// (seed 2600210) whose route keeps four members. Its retarget calls succeed
// again and again, each success hundreds of moves into the scan, and a move
// that reproduces costs a descent. With the default budget it reaches the
// best known 19 (E:12) only because a scan after a success starts at the
// move that succeeded and a descent's removal checks run 2 schedules, not
// 8: before, retarget's share ran out at 79 (E:14). (Seed 2700324, tested
// here too until the swap's second direction, now ends at 46 (E:16) by
// another route, not for want of steps: docs/minimization.md, "swap".)
func TestLongMoveScansFinishWithinTheBudget(t *testing.T) {
	for _, file := range []string{"raft-58a-2600210-four-members.trace"} {
		t.Run(file, func(t *testing.T) {
			res := minimizeFile(t, "testdata/"+file, raft.System())
			assert.Equal(t, [2]int{19, 12}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
			assert.Contains(t, res.Trace.Header.Violation.Detail, "has a nextIndex beyond its log")
		})
	}
}

// TestCleanupReorderIsANewStart minimizes the result of fresh raft-58a seed
// 8700010 (held-out range 8700000) as the driver had it before round form: 21
// deliveries (E:12), where every removal, move and search stops. Round form
// reorders it; from the reordered trace a reroute move of retarget reaches the
// bug's best known size, 19 (E:12). Before the cleanup's reordered trace was a
// new start, the run ended at 21 (E:12).
func TestCleanupReorderIsANewStart(t *testing.T) {
	res := minimizeFile(t, "testdata/raft-58a-8700010-before-round-form.trace", raft.System())
	assert.Equal(t, [2]int{19, 12}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	i := slices.IndexFunc(res.Stages, func(s minimize.StageStats) bool { return s.Name == minimize.StageRoundForm })
	require.Positive(t, i)
	assert.Equal(t, 21, res.Stages[i].Deliveries, "the descent before round form stops at 21")
	j := slices.IndexFunc(res.Stages, func(s minimize.StageStats) bool { return s.Deliveries == 19 })
	require.Greater(t, j, i, "19 comes after round form")
	assert.Equal(t, minimize.StageRetarget, minimize.PassOf(res.Stages[j].Name))
}
