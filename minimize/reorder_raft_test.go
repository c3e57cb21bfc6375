package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReorderEscapesALocalMinimum minimizes a raft-46 trace on which the
// pipeline without the reorder stage ended (15 deliveries, E:6, from fuzz
// seed 23; minimized again, its removal stages stop at 14): a reorder
// move gets below, and the result is the best known size (10, E:6).
func TestReorderEscapesALocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-46-local-minimum.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 15, tr.Header.Deliveries)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, 10, res.Trace.Header.Deliveries)
	assert.Equal(t, 6, res.Trace.Header.Externals)
	// The removals stop at 14; a move is what gets below.
	tiers := map[string]minimize.Tier{}
	for _, p := range minimize.Passes() {
		tiers[p.Name] = p.Tier
	}
	for i, s := range res.Stages {
		if s.Deliveries < 14 {
			require.Positive(t, i)
			assert.Equal(t, 14, res.Stages[i-1].Deliveries, "removals alone stop here")
			assert.Equal(t, minimize.Move, tiers[minimize.PassOf(s.Name)], "a move gets below the local minimum (%s)", s.Name)
			return
		}
	}
	t.Fatal("nothing got below 14")
}
