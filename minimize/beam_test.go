package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOtherRoutesEscapesARouteSwitch minimizes two fresh spark-2294 traces
// (seeds 200002 and 200007 of demi-eval's fresh-seed study, range 200000).
// Their violation keeps one fingerprint on two routes: a task without
// preference launched before a node-local one, and a speculative copy
// launched before one. A removal switches to the second route (delta
// debugging over the deliveries on 200002, over the external events on
// 200007), whose local minimum is 21 deliveries (E:7). The removal tier run
// again on the last best trace of the first route, keeping to that route,
// reaches 7 (E:5), the bug's best known size. On 200007 the same removals
// without keeping to the route would switch again. The pass runs right
// after each call that left a route (twice on 200002), its result held
// aside until the search tier reaches it.
func TestOtherRoutesEscapesARouteSwitch(t *testing.T) {
	for file, c := range map[string]struct {
		alone [2]int
		held  int // calls right after a route was left
	}{
		// shrink-contents' zero rename (a preference to none) reaches the
		// first route from the second on its own
		"spark-2294-200002-routes.trace": {[2]int{7, 5}, 2},
		"spark-2294-200007-routes.trace": {[2]int{21, 7}, 1},
	} {
		t.Run(file, func(t *testing.T) {
			tr, sys, err := record.ReadFile("testdata/"+file, record.NewCatalog(spark.System()))
			require.NoError(t, err)
			size := func(skip ...string) ([2]int, []minimize.StageStats) {
				res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2, Skip: skip})
				require.NoError(t, err)
				require.False(t, res.Interrupted)
				return [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals}, res.Stages
			}
			without, _ := size(minimize.StageOtherRoutes)
			assert.Equal(t, c.alone, without, "without other-routes")
			with, stages := size()
			assert.Equal(t, [2]int{7, 5}, with)
			var rows []minimize.StageStats
			for _, s := range stages {
				if minimize.PassOf(s.Name) == minimize.StageOtherRoutes {
					rows = append(rows, s)
				}
			}
			require.Len(t, rows, c.held+1, "a call after each route left, then the offer")
			for _, r := range rows[:c.held] {
				assert.Positive(t, r.Steps, "a held call runs")
				assert.Greater(t, r.Deliveries+r.Externals, 12, "its result is held aside")
			}
			offer := rows[c.held]
			assert.Equal(t, [3]int64{7, 5, 0}, [3]int64{int64(offer.Deliveries), int64(offer.Externals), offer.Steps},
				"the first route's result replaces the best trace when the search tier reaches the pass")
		})
	}
}

// TestZeroRenameReachesTheOtherRoute minimizes a fresh spark-2294 trace
// (seed 600007 of the fresh-seed study, range 600000) that fails on the
// second route only (a speculative copy launched before a node-local
// task): the route of the bug's best known size (a task without
// preference) is not among its traces. shrink-contents renames a
// preference of its job to the zero value (no preference), which reaches
// that route: 7 deliveries (E:5) where the second route's local minimum is
// 21 (E:7).
func TestZeroRenameReachesTheOtherRoute(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/spark-2294-600007-second-route.trace", record.NewCatalog(spark.System()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Interrupted)
	assert.Equal(t, [2]int{7, 5}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	assert.Contains(t, res.Trace.Header.Violation.Detail, "NO_PREF before NODE_LOCAL")
}
