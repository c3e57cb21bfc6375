package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInternalsFirstEscapesALocalMinimum minimizes the shipped etcdraft
// apply-before-commit trace: the removals, moves and the searches before
// it end at 7 deliveries (E:3), and the second start, internal events
// before external ones, run right after provenance and held aside, gets 6
// (E:3), which the driver keeps.
func TestInternalsFirstEscapesALocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/etcdraft-apply-before-commit.trace", record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Interrupted)
	ran, offered := false, false
	for i, s := range res.Stages {
		switch s.Name {
		case minimize.StageInternalsFirst:
			// It runs right after provenance, its result held aside.
			require.False(t, ran, "internals-first runs once")
			ran = true
			before := res.Stages[i-1]
			assert.Equal(t, minimize.StageProvenance, before.Name, "it runs right after provenance")
			assert.Equal(t, [2]int{before.Deliveries, before.Externals}, [2]int{s.Deliveries, s.Externals}, "held aside, not offered yet")
			assert.Positive(t, s.Steps)
		case minimize.RoundStage(minimize.StageInternalsFirst, 2):
			// Offered when the search tier reaches the pass.
			require.True(t, ran, "offered after it ran")
			offered = true
			before := res.Stages[i-1]
			assert.Equal(t, [2]int{7, 3}, [2]int{before.Deliveries, before.Externals}, "where the first order ends")
			assert.Equal(t, [2]int{6, 3}, [2]int{s.Deliveries, s.Externals}, "the second order gets below")
			assert.Zero(t, s.Steps)
		}
	}
	require.True(t, ran, "internals-first ran")
	require.True(t, offered, "internals-first's result was offered")
	assert.Equal(t, [2]int{6, 3}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
}
