package minimize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRemovalCallsStallOnTheirOwn: once the run has gone its allowance
// without improvement, no move or search may run on, but a removal call
// that starts then still gets the allowance from its own start.
func TestRemovalCallsStallOnTheirOwn(t *testing.T) {
	m := &minimizer{stallFloor: 100}
	m.limit.Store(1 << 40)
	m.lastImprovement.Store(1000)
	m.steps.Store(2500)
	require.Equal(t, int64(2000), m.runStallPoint(), "the allowance is the steps up to the last improvement")
	require.True(t, m.stalled())

	m.callStart, m.removalCall = 2200, false
	require.Equal(t, int64(2000), m.end(), "a move call ends at the run's stall point")

	m.removalCall = true
	require.Equal(t, int64(3200), m.end(), "a removal call gets the allowance from its start")

	m.lastImprovement.Store(2600) // the removal call found something
	require.Equal(t, int64(2600+2600), m.end())

	m.lastImprovement.Store(50) // the floor, when the allowance is smaller
	m.callStart = 0
	require.Equal(t, int64(150), m.end())
}
