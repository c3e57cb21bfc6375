package minimize_test

import (
	"context"
	"strings"
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
// stage gets below, and the result is the best known size (10, E:6).
func TestReorderEscapesALocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-46-local-minimum.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 15, tr.Header.Deliveries)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, 10, res.Trace.Header.Deliveries)
	assert.Equal(t, 6, res.Trace.Header.Externals)
	// The removal stages (a first pass and a round) stop at 14; the first
	// reorder stage is what gets below.
	for i, s := range res.Stages {
		if strings.HasPrefix(s.Name, minimize.StageReorder+"-") {
			require.Positive(t, i)
			assert.Equal(t, 14, res.Stages[i-1].Deliveries, "removals alone stop here")
			assert.Less(t, s.Deliveries, 14, "the first reorder stage gets below the local minimum (%s)", s.Name)
			return
		}
	}
	t.Fatal("no reorder stage ran")
}
