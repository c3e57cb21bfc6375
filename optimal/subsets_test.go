package optimal_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// naiveSubsets is the reference for Subsets: iterative deepening on
// deliveries plus externals over every subsequence of the external events
// and every interleaving, no reduction.
func naiveSubsets(t *testing.T, sys *record.System, tr *record.Trace, maxCost int) int {
	t.Helper()
	exts := tr.Externals()
	want := tr.Header.Violation.Fingerprint
	var try func(path []int, budget int) bool
	try = func(path []int, budget int) bool {
		sim, err := record.NewSim(sys, tr.Header.OptionMap(), tr.Header.Seed)
		require.NoError(t, err)
		ext := 0
		for _, step := range path {
			switch {
			case step == -1:
				require.NoError(t, sim.Apply(exts[ext]))
				ext++
			case step == -2:
				ext++
			default:
				require.NoError(t, sim.Deliver(sim.Enabled(nil)[step].ID))
			}
		}
		if v := sim.Check(); v != nil && v.Fingerprint == want {
			return true
		}
		if sim.Halted() != nil {
			return false
		}
		if ext < len(exts) {
			if try(append(append([]int(nil), path...), -2), budget) {
				return true
			}
			if budget > 0 && try(append(append([]int(nil), path...), -1), budget-1) {
				return true
			}
		}
		if budget > 0 {
			for i := range sim.Enabled(nil) {
				if try(append(append([]int(nil), path...), i), budget-1) {
					return true
				}
			}
		}
		return false
	}
	for c := 0; c <= maxCost; c++ {
		if try(nil, c) {
			return c
		}
	}
	return -1
}

func TestSubsetsSearchMatchesNaive(t *testing.T) {
	sys, tr := failing(t, "panic-on-lap", 40)
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: tr.Header.Deliveries, Subsets: true})
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	assert.True(t, res.Exhausted)
	cost := res.Deliveries + res.Externals
	assert.Equal(t, naiveSubsets(t, sys, tr, cost), cost)
	assert.Less(t, res.Externals, len(tr.Externals()), "the optimum leaves external events out")
	assert.Equal(t, cost-1, res.Searched)
	r, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, r.Reproduced)
}

func TestCommutationFilterSkipsStepsNotStates(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	for _, cfg := range []optimal.Config{{NoLowerBound: true, MaxDeliveries: 8}, {NoLowerBound: true, MaxDeliveries: 6, Subsets: true, TotalBound: 11}} {
		// The other reductions off on both sides: they skip steps too.
		cfg = optimal.Without(cfg, "memo", "dominance")
		with, err := optimal.Search(context.Background(), sys, tr, cfg)
		require.NoError(t, err)
		without, err := optimal.Search(context.Background(), sys, tr, optimal.WithoutCommutation(cfg))
		require.NoError(t, err)
		assert.Equal(t, without.Deliveries, with.Deliveries)
		assert.Equal(t, without.Externals, with.Externals)
		assert.Equal(t, without.Searched, with.Searched)
		assert.Equal(t, without.States, with.States, "the filter skips steps, not states")
		t.Logf("subsets=%v: states %d, steps %d with the filter, %d without", cfg.Subsets, with.States, with.Steps, without.Steps)
		assert.Less(t, with.Steps, without.Steps*4/5, "deliveries to different actors commute: most orders are filtered")
	}
}
