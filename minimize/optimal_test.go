package minimize_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultSaysOptimal minimizes the shipped paxos-forget-accepted trace: the optimum pass's exhaustive
// search proves the result, 18 deliveries (E:5), optimal over its external events, Result.Optimal says
// so, and the proof ends the run (provedEndsRun). Without the optimum pass nothing proves it, and
// Result.Optimal is false.
func TestResultSaysOptimal(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/paxos-forget-accepted.trace", record.NewCatalog(paxos.System()))
	require.NoError(t, err)
	for _, skip := range [][]string{nil, {minimize.StageOptimum}} {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2, Skip: skip})
		require.NoError(t, err)
		if skip == nil {
			provedEndsRun(t, res, [2]int{18, 5})
		} else {
			assert.False(t, res.Optimal, "without the optimum pass")
		}
	}
}

// TestProofEndsTheRun minimizes the shipped etcdraft-apply-before-commit trace, whose result the optimum
// pass proves optimal (provedEndsRun). A proof check that remembered its answer per best trace ran the
// beam after the proving call on it, a third more steps.
func TestProofEndsTheRun(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/etcdraft-apply-before-commit.trace", record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
	require.NoError(t, err)
	provedEndsRun(t, res, [2]int{6, 3})
}

// provedEndsRun asserts that res is want deliveries and externals, proved optimal, and that after the first
// optimum call on a trace of that size, the call that proves it, only the cleanup tier ran.
func provedEndsRun(t *testing.T, res *minimize.Result, want [2]int) {
	t.Helper()
	require.Equal(t, want, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	require.True(t, res.Optimal, "proved by the optimum pass")
	tiers := map[string]minimize.Tier{}
	for _, p := range minimize.Passes() {
		tiers[p.Name] = p.Tier
	}
	proof := slices.IndexFunc(res.Stages, func(s minimize.StageStats) bool {
		return minimize.PassOf(s.Name) == minimize.StageOptimum && [2]int{s.Deliveries, s.Externals} == want
	})
	require.GreaterOrEqual(t, proof, 0, "the optimum pass ran on the result")
	var after []string
	for _, s := range res.Stages[proof+1 : len(res.Stages)-1] {
		if tiers[minimize.PassOf(s.Name)] != minimize.Cleanup {
			after = append(after, s.Name)
		}
	}
	assert.Empty(t, after, "no removal, move or search after the proof")
}
