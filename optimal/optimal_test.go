package optimal_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failing returns a fuzzed failing trace of the token ring with bug on.
func failing(t *testing.T, bug string, maxSteps int) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{bug: "true"}, record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 7, MaxSteps: maxSteps, MaxExternals: 8}, Runs: 200})
	require.NoError(t, err)
	require.NotNil(t, tr, "no %s violation found", bug)
	return sys, tr
}

// naive is the reference the reductions are checked against: iterative
// deepening over every interleaving, with no commutation and no visited
// set, each schedule replayed from scratch.
func naive(t *testing.T, sys *record.System, tr *record.Trace, maxD int) int {
	t.Helper()
	exts := tr.Externals()
	want := tr.Header.Violation.Fingerprint
	var try func(path []int, d int) bool
	try = func(path []int, d int) bool {
		sim, err := record.NewSim(sys, tr.Header.OptionMap(), tr.Header.Seed)
		require.NoError(t, err)
		ext, dl := 0, 0
		for _, step := range path {
			if step < 0 {
				require.NoError(t, sim.Apply(exts[ext]))
				ext++
			} else {
				require.NoError(t, sim.Deliver(sim.Enabled(nil)[step].ID))
				dl++
			}
		}
		if v := sim.Check(); v != nil && v.Fingerprint == want {
			return true
		}
		if sim.Halted() != nil {
			return false
		}
		if ext < len(exts) && try(append(append([]int(nil), path...), -1), d) {
			return true
		}
		if dl < d {
			for i := range sim.Enabled(nil) {
				if try(append(append([]int(nil), path...), i), d) {
					return true
				}
			}
		}
		return false
	}
	for d := 0; d <= maxD; d++ {
		if try(nil, d) {
			return d
		}
	}
	return -1
}

// foundCost returns the cost of the reproducer res found (deliveries, plus
// externals when subsets), checked by exact replay, or -1 when it found
// none.
func foundCost(t *testing.T, sys *record.System, res *optimal.Result, subsets bool) int {
	t.Helper()
	if res.Trace == nil {
		return -1
	}
	r, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, r.Reproduced, "the reproducer found replays")
	if subsets {
		return res.Deliveries + res.Externals
	}
	return res.Deliveries
}

func TestSearchMatchesNaiveOptimum(t *testing.T) {
	cases := []struct {
		bug      string
		maxSteps int
	}{
		{"restore-token", 60},
		{"panic-on-lap", 40},
	}
	for _, c := range cases {
		t.Run(c.bug, func(t *testing.T) {
			sys, tr := failing(t, c.bug, c.maxSteps)
			res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: tr.Header.Deliveries})
			require.NoError(t, err)
			require.NotNil(t, res.Trace, "the input itself is a schedule within the bound")
			assert.True(t, res.Exhausted)
			assert.LessOrEqual(t, res.Deliveries, tr.Header.Deliveries)

			want := naive(t, sys, tr, res.Deliveries)
			assert.Equal(t, want, res.Deliveries, "the reduced search must find the same optimum as the naive one")

			r, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			assert.True(t, r.Reproduced)
			assert.Equal(t, tr.Header.Violation.Fingerprint, r.Violation.Fingerprint)
			assert.Equal(t, len(tr.Externals()), res.Externals, "every external event of the input is applied")
			assert.Equal(t, res.Deliveries-1, res.Searched)
		})
	}
}

// TestRaft46IsOptimal proves the shipped raft-46 result optimal for its
// external events: no schedule of them with fewer than 10 deliveries
// elects two leaders in one term.
func TestRaft46IsOptimal(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 10, tr.Header.Deliveries)
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 10})
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	assert.True(t, res.Exhausted)
	assert.Equal(t, 10, res.Deliveries)
	assert.Equal(t, 6, res.Externals)
	assert.Equal(t, 9, res.Searched)
	assert.True(t, tr.Header.Violation.Same(res.Trace.Header.Violation))
}

func TestSearchBoundTooSmall(t *testing.T) {
	sys, tr := failing(t, "panic-on-lap", 40)
	// A lap needs the injection plus three pass-and-token hops: 7 deliveries.
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 6})
	require.NoError(t, err)
	assert.Nil(t, res.Trace)
	assert.True(t, res.Exhausted)
	assert.Equal(t, 6, res.Searched)
}

func TestSearchBadInput(t *testing.T) {
	sys, tr := failing(t, "restore-token", 60)
	_, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: -1})
	assert.Error(t, err)
	clean := *tr
	clean.Header.Violation = nil
	_, err = optimal.Search(context.Background(), sys, &clean, optimal.Config{NoLowerBound: true, MaxDeliveries: 3})
	assert.Error(t, err)
}

func TestSearchStopsEarly(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	var bounds []int
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 10, MaxStates: 2000,
		Progress: func(p optimal.Progress) { bounds = append(bounds, p.Bound) }})
	require.NoError(t, err)
	assert.Nil(t, res.Trace)
	assert.False(t, res.Exhausted, "stopped on MaxStates")
	assert.Equal(t, 2000, res.States)
	require.NotEmpty(t, bounds)
	assert.Equal(t, bounds[len(bounds)-1], res.Searched, "the last bound reported is the lower bound proved")
	assert.Less(t, res.Searched, 9)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = optimal.Search(ctx, sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 10})
	require.NoError(t, err)
	assert.False(t, res.Exhausted)
	assert.Equal(t, -1, res.Searched)
	assert.Nil(t, res.Trace)
}

func TestHistoryFilterCanBeForgotten(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	full, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 7})
	require.NoError(t, err)
	require.True(t, full.Exhausted)
	// Just room for the states: the history table, larger, is emptied
	// again and again, and the search still finishes with the same answer.
	tight, err := optimal.Search(context.Background(), sys, tr, optimal.Config{NoLowerBound: true, MaxDeliveries: 7, MaxStates: full.States + 1})
	require.NoError(t, err)
	assert.True(t, tight.Exhausted)
	assert.Equal(t, full.Searched, tight.Searched)
	assert.Equal(t, full.States, tight.States)
	assert.Greater(t, tight.Steps, full.Steps, "forgotten histories cost steps")
}
