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
// before external ones, gets 6 (E:3), which the driver keeps.
func TestInternalsFirstEscapesALocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/etcdraft-apply-before-commit.trace", record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Interrupted)
	ran := false
	for i, s := range res.Stages {
		if s.Name != minimize.StageInternalsFirst {
			continue
		}
		require.False(t, ran, "internals-first runs once")
		ran = true
		before := res.Stages[i-1]
		assert.Equal(t, [2]int{7, 3}, [2]int{before.Deliveries, before.Externals}, "where the first order ends")
		assert.Equal(t, [2]int{6, 3}, [2]int{s.Deliveries, s.Externals}, "the second order gets below")
		assert.Positive(t, s.Steps)
	}
	require.True(t, ran, "internals-first ran")
	assert.Equal(t, [2]int{6, 3}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
}
