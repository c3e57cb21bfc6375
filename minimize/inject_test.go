package minimize_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInjectTradesDeliveriesForARestart runs the inject pass on the stale
// system's Clear route (stale_test.go: 7 deliveries, E:3, no crash in
// it), with fuzz generators that crash-restart any running member. The
// pass trades c's tick and its Clear (two deliveries) for a restart of r
// where the stretch ended, which forgets Data{0} as the Clear did: 5
// deliveries and 4 externals (the removals then drop c's start), and the
// trace still reproduces. Without generators there is nothing to offer.
func TestInjectTradesDeliveriesForARestart(t *testing.T) {
	sys := staleSystem()
	sys.Externals = []record.Generator{{Name: "crash", Weight: 1, Each: func(v record.View) []record.Event {
		var out []record.Event
		for _, id := range v.Members() {
			if v.Running(id) {
				out = append(out, record.RestartEvent(id))
			}
		}
		return out
	}}}
	best := staleInput(t, sys, false)
	require.Equal(t, [2]int{7, 3}, [2]int{best.Header.Deliveries, best.Header.Externals})

	got, err := minimize.RunInjectStage(context.Background(), sys, best, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"start s", "start r", "start c", "deliver s", "deliver s", "deliver r", "restart r", "deliver s", "deliver r"}, staleKinds(got))
	assert.Equal(t, [2]int{5, 4}, [2]int{got.Header.Deliveries, got.Header.Externals})
	rep, err := replay.Run(context.Background(), sys, got)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	one, err := minimize.RunInjectStage(context.Background(), sys, best, 1)
	require.NoError(t, err)
	assert.Equal(t, encode(t, got), encode(t, one), "the same trace with one worker")

	sys.Externals = nil
	none, err := minimize.RunInjectStage(context.Background(), sys, best, 1)
	require.NoError(t, err)
	assert.Equal(t, encode(t, best), encode(t, none), "nothing to inject without generators")
}
