package optimal_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/optimal"
)

// TestAheadGivesSequentialResults runs searches that need 100, 200, ...
// steps ahead on 1 to 3 workers, with a budget that runs out among them,
// and takes their results in order, each with the steps left: every
// result is the one a search started after the ones before it gives,
// including the search the budget cuts short, which runs again.
func TestAheadGivesSequentialResults(t *testing.T) {
	const n, budget = 20, 1000
	search := func(runs *atomic.Int32) func(context.Context, int, int) (*optimal.Result, error) {
		return func(_ context.Context, k, maxSteps int) (*optimal.Result, error) {
			runs.Add(1)
			need := 100 * (k + 1)
			return &optimal.Result{Steps: min(need, maxSteps), Exhausted: need < maxSteps}, nil
		}
	}
	var want []optimal.Result
	for k, left := 0, budget; left > 0; k++ {
		r, err := search(new(atomic.Int32))(context.Background(), k, left)
		require.NoError(t, err)
		want = append(want, *r)
		left -= r.Steps
	}
	require.Len(t, want, 4)
	require.False(t, want[3].Exhausted, "the fourth search is cut short")
	for _, j := range []int{1, 2, 3} {
		var runs atomic.Int32
		a := optimal.RunAhead(context.Background(), n, j, budget, search(&runs))
		var got []optimal.Result
		for k, left := 0, budget; left > 0; k++ {
			r, err := a.Result(k, left)
			require.NoError(t, err)
			got = append(got, *r)
			left -= r.Steps
		}
		a.Stop()
		require.Equal(t, want, got, "%d at a time", j)
		require.LessOrEqual(t, runs.Load(), int32(min(n, 4+2*j)+1), "%d at a time: at most twice as many run ahead", j)
		require.GreaterOrEqual(t, runs.Load(), int32(5), "%d at a time: the fourth search runs again with the steps it has left", j)
	}
}

// TestAheadStopCancels: after Stop, Result returns the context's error
// instead of waiting for a search that may never start.
func TestAheadStopCancels(t *testing.T) {
	a := optimal.RunAhead(context.Background(), 3, 1, 10, func(ctx context.Context, _, _ int) (*optimal.Result, error) {
		<-ctx.Done()
		return &optimal.Result{}, nil
	})
	a.Stop()
	for k := range 3 {
		_, err := a.Result(k, 10)
		require.ErrorIs(t, err, context.Canceled, "search %d", k)
	}
}
