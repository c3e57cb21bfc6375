package onethirdrule_test

import (
	"context"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	otr "github.com/demi-project/demi/heldout/onethirdrule"
)

// TestTransition checks the end-of-round rule on five members, with and
// without the bug.
func TestTransition(t *testing.T) {
	for _, c := range []struct {
		name      string
		heard     []int
		x         int
		bug       bool
		newX, dec int
	}{
		{"three heard: too few, keep", []int{2, 1, 1, 0, 0}, 2, false, 2, 0},
		{"four heard, all equal: decide", []int{1, 1, 1, 1, 0}, 2, false, 1, 1},
		{"four heard, three equal: adopt only", []int{2, 2, 2, 1, 0}, 2, false, 2, 0},
		{"bug: four heard, three equal: decide", []int{2, 2, 2, 1, 0}, 2, true, 2, 2},
		{"tie: the smallest value", []int{2, 2, 1, 1, 0}, 2, false, 1, 0},
		{"bug: a tie decides nothing", []int{2, 2, 1, 1, 0}, 2, true, 1, 0},
		{"five heard, four equal: decide", []int{3, 3, 1, 3, 3}, 1, false, 3, 3},
		{"five heard, three equal: adopt only", []int{3, 3, 1, 3, 1}, 1, false, 3, 0},
		{"bug: five heard, three equal: adopt only", []int{3, 3, 1, 3, 1}, 1, true, 3, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, d := otr.Transition(c.heard, c.x, 5, c.bug)
			assert.Equal(t, c.newX, x, "new value")
			assert.Equal(t, c.dec, d, "decision")
		})
	}
}

// deliverAll delivers ordinary messages (never timers), the oldest first,
// at most limit of them.
func deliverAll(t *testing.T, s *record.Sim, limit int) {
	t.Helper()
	for range limit {
		delivered := false
		for _, p := range s.Enabled(nil) {
			if p.Timer == "" {
				require.NoError(t, s.Deliver(p.ID))
				delivered = true
				break
			}
		}
		if !delivered {
			return
		}
	}
}

// TestEveryoneDecides runs five members that hear from everyone in every
// round: after two rounds all decide the smallest most frequent value.
func TestEveryoneDecides(t *testing.T) {
	s, err := record.NewSim(otr.System(), nil, 1)
	require.NoError(t, err)
	ids := s.Members()
	for _, id := range ids {
		require.NoError(t, s.Apply(record.StartEvent(id)))
	}
	for i, v := range []int{3, 2, 3, 2, 1} {
		require.NoError(t, s.Apply(record.SendEvent(ids[i], otr.Propose{Value: v})))
	}
	deliverAll(t, s, 200)
	require.Nil(t, s.Check())
	// Round 1: 2 and 3 tie, so everyone takes 2; round 2: all hear 2.
	for _, id := range ids {
		n := s.View().Actor(id).(*otr.Node)
		assert.Equal(t, 2, n.Decision(), "%s", id)
	}
}

// TestNoViolationWithoutBug fuzzes the correct algorithm.
func TestNoViolationWithoutBug(t *testing.T) {
	for _, mode := range []record.Mode{record.Swarm, record.Walk} {
		tr, runs, err := record.Search(context.Background(), otr.System(), nil,
			record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 300, Mode: mode})
		require.NoError(t, err)
		assert.Nil(t, tr, "%s found a violation", mode.Name())
		assert.Equal(t, 300, runs)
	}
}

// TestBugFoundAndReplayed fuzzes with the bug switch on: the fuzzer breaks
// Agreement, and the trace replays to the same violation.
func TestBugFoundAndReplayed(t *testing.T) {
	ctx := context.Background()
	sys := otr.System()
	tr, _, err := record.Search(ctx, sys, record.Options{otr.BugDecideOfHeard: "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 200, Mode: record.Swarm})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in 200 runs")
	require.NotNil(t, tr.Header.Violation)
	assert.True(t, strings.HasPrefix(tr.Header.Violation.Fingerprint, "Agreement("), tr.Header.Violation.Fingerprint)

	results, err := replay.Repeat(ctx, sys, tr, 5)
	require.NoError(t, err)
	for _, r := range results {
		assert.True(t, r.Reproduced, r.Why())
	}
}
