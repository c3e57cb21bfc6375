package minimize_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStepBudgetEndsStagesDeterministically minimizes the shipped raft-58b
// trace with a step budget far too small for the pipeline to converge: the
// stages end where their share of the steps runs out, and that point, the
// steps of every stage and the resulting trace are the same with 1, 2 and
// 3 workers.
func TestStepBudgetEndsStagesDeterministically(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-58b.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	const budget = 300_000
	var first []byte
	var firstSteps []int64
	for _, j := range []int{1, 2, 3} {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: j, Steps: budget})
		require.NoError(t, err)
		require.False(t, res.Interrupted)
		var buf bytes.Buffer
		require.NoError(t, res.Trace.Encode(&buf))
		var steps []int64
		total := int64(0)
		for _, s := range res.Stages {
			steps = append(steps, s.Steps)
			total += s.Steps
		}
		// The budget ran out: the tiers stopped where their shares did,
		// with a twentieth left to the cleanup; nothing runs past the
		// budget but the chunk a pass was checking when it reached it.
		require.GreaterOrEqual(t, total, int64(budget)*3/4, "-j %d", j)
		require.LessOrEqual(t, total, int64(budget)*11/10, "-j %d", j)
		require.Equal(t, minimize.StageRoundForm, res.Stages[len(res.Stages)-2].Name)
		if first == nil {
			first, firstSteps = buf.Bytes(), steps
			continue
		}
		assert.Equal(t, firstSteps, steps, "steps per stage with -j %d", j)
		assert.True(t, bytes.Equal(first, buf.Bytes()), "-j %d gives the same trace as -j 1", j)
	}
}
