package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultSaysOptimal minimizes the shipped paxos-forget-accepted trace: the optimum pass's exhaustive
// search proves the result, 18 deliveries (E:5), optimal over its external events, and Result.Optimal says
// so. Without the optimum pass nothing proves it, and Result.Optimal is false.
func TestResultSaysOptimal(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/paxos-forget-accepted.trace", record.NewCatalog(paxos.System()))
	require.NoError(t, err)
	for _, skip := range [][]string{nil, {minimize.StageOptimum}} {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2, Skip: skip})
		require.NoError(t, err)
		if skip == nil {
			assert.Equal(t, [2]int{18, 5}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
			assert.True(t, res.Optimal, "proved by the optimum pass")
			// The proof ends the descent: after the last optimum call only the cleanup tier runs.
			tiers := map[string]minimize.Tier{}
			for _, p := range minimize.Passes() {
				tiers[p.Name] = p.Tier
			}
			last := -1
			for i, s := range res.Stages {
				if minimize.PassOf(s.Name) == minimize.StageOptimum {
					last = i
				}
			}
			require.GreaterOrEqual(t, last, 0, "the optimum pass ran")
			var after []string
			for _, s := range res.Stages[last+1 : len(res.Stages)-1] {
				if tiers[minimize.PassOf(s.Name)] != minimize.Cleanup {
					after = append(after, s.Name)
				}
			}
			assert.Empty(t, after, "no removal, move or search after the proof")
		} else {
			assert.False(t, res.Optimal, "without the optimum pass")
		}
	}
}
