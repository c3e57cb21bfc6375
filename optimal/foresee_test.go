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
