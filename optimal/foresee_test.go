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
