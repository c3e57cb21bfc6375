package optimal_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForeseeStopsWhatCannotFinish proves raft-46's minimized trace
// optimal (no schedule of fewer deliveries; 10,461 states) under a state
// cap too small for it and under one large enough, with and without
// Foresee. Under 5,000 states the plain search walks to the cap and stops
// in bound 9. Foresee looks once the states reach a 64th of the cap (78):
// after bound 5 (98 states, bounds 3 to 5 adding 6, 19 and 63) the last
// two bounds' growth, about 3.2 each, puts bound 9 far past the cap, so it
// stops there, having run a small share of the steps. Under 20,000 states
// Foresee changes nothing.
func TestForeseeStopsWhatCannotFinish(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	search := func(maxStates int, foresee bool) *optimal.Result {
		res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true,
			MaxDeliveries: tr.Header.Deliveries - 1, MaxStates: maxStates, Foresee: foresee})
		require.NoError(t, err)
		assert.Nil(t, res.Trace)
		return res
	}
	plain, foreseen := search(5000, false), search(5000, true)
	assert.Equal(t, [3]any{5000, 8, false}, [3]any{plain.States, plain.Searched, plain.Exhausted})
	assert.Equal(t, [3]any{98, 5, false}, [3]any{foreseen.States, foreseen.Searched, foreseen.Exhausted})
	assert.Less(t, 20*foreseen.Steps, plain.Steps)

	plain, foreseen = search(20000, false), search(20000, true)
	assert.Equal(t, [3]any{10461, 9, true}, [3]any{plain.States, plain.Searched, plain.Exhausted})
	assert.Equal(t, plain.States, foreseen.States)
	assert.Equal(t, plain.Steps, foreseen.Steps)
	assert.True(t, foreseen.Exhausted)
}

// TestForeseeFollowsTheGrowthOfTwoBounds replays Config.Foresee's
// forecast on the states known after each bound of two searches of
// demi optimal --subsets (100,000 states, bound = the trace's cost less
// one) on minimized development traces. paxos-accept-below-promise
// 3800005 (cost 24) finishes at 67,893 states: its bounds grow 1.4 to 1.7
// times from one to the next, and extrapolating the last one alone (1.67
// after bound 17) would have given the proof up. etcdraft
// leader-local-read 3800022 (cost 17) grows about threefold per bound and
// cannot finish: the forecast gives it up after bound 8, at 3,656 states.
func TestForeseeFollowsTheGrowthOfTwoBounds(t *testing.T) {
	stops := func(states []int, maxBound int) int {
		var known [4]int
		for bound, n := range states {
			known = [4]int{known[1], known[2], known[3], n}
			if bound < maxBound && optimal.Beyond(known, maxBound-bound, 100000) {
				return bound
			}
		}
		return -1
	}
	paxos := []int{0, 13, 49, 104, 156, 191, 217, 251, 301, 365, 450, 583, 794, 1126, 1617, 2355,
		3525, 5474, 8649, 13435, 20291, 30276, 45390, 67893}
	assert.Equal(t, -1, stops(paxos, 23), "a search that finishes is not given up")
	llr := []int{0, 11, 36, 72, 131, 250, 537, 1328, 3656, 10785, 33317}
	assert.Equal(t, 8, stops(llr, 16))
}

// TestLeapWalksTheLargestBoundNext searches raft-46's minimized trace (10
// deliveries, its optimum), with Foresee, with and without Leap: for a
// schedule of at most 9 deliveries under 20,000 states (a proof: none)
// and of at most 10 under 100,000 (a find). The forecast has what it
// needs once the states reach a 64th of the cap: after bound 7 (939
// states) for the proof, after bound 8 (3,090) for the find; the bounds
// left fit, so Leap walks the largest bound next. The proof covers the
// same states and is as exhaustive in fewer steps (bound 8 skipped). The
// find has the same cost in fewer steps, but Exhausted is false: bound 9
// was never walked, so the search cannot say nothing cheaper exists.
func TestLeapWalksTheLargestBoundNext(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	search := func(maxDeliveries, maxStates int, leap bool) (*optimal.Result, []int) {
		var bounds []int
		res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true,
			MaxDeliveries: maxDeliveries, MaxStates: maxStates, Foresee: true, Leap: leap,
			Progress: func(p optimal.Progress) { bounds = append(bounds, p.Bound) }})
		require.NoError(t, err)
		return res, bounds
	}
	proof, bounds := search(9, 20000, false)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, bounds)
	assert.Equal(t, [3]any{10461, true, 18765}, [3]any{proof.States, proof.Exhausted, proof.Steps})
	leapt, bounds := search(9, 20000, true)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 9}, bounds, "bound 8 skipped")
	assert.Equal(t, [3]any{10461, true, 15413}, [3]any{leapt.States, leapt.Exhausted, leapt.Steps})

	find, bounds := search(10, 100000, false)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, bounds)
	assert.Equal(t, [3]any{10, true, 28176}, [3]any{find.Deliveries, find.Exhausted, find.Steps})
	leapt, bounds = search(10, 100000, true)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, bounds, "bound 9 skipped")
	assert.Equal(t, [3]any{10, false, 16867}, [3]any{leapt.Deliveries, leapt.Exhausted, leapt.Steps})
}
