package raft_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// exactBelowBound checks the bound at the states of tr after cut events,
// for each cut in cuts, against the exact answer: an optimum search from
// that state (optimal.SearchFrom, the system's bound off) over every
// schedule of the deliveries and of every subsequence of the external
// events still to come, costing less than the bound (and at most
// budget), must find no reproducer. This checks the "impossible" answers
// too, up to budget. It returns the states checked and the cost levels
// searched in all.
func exactBelowBound(t *testing.T, sys *record.System, tr *record.Trace, cuts []int, budget int) (states, levels int) {
	t.Helper()
	sim, err := tr.Setup(sys).NewSim()
	require.NoError(t, err)
	want := tr.Header.Violation
	k := 0
	for _, cut := range cuts {
		for ; k < cut; k++ {
			e := tr.Events[k]
			if e.Kind == record.Deliver {
				require.NoError(t, sim.Deliver(e.ID))
			} else {
				require.NoError(t, sim.Apply(e))
			}
		}
		h := sys.LowerBound(record.Goal{View: sim.View(), InFlight: sim.InFlight(), Want: want, Future: future(tr, cut), CountExternals: true})
		b := min(h-1, budget)
		if b < 1 {
			continue
		}
		res, err := optimal.SearchFrom(context.Background(), sys, tr, cut, optimal.Config{
			MaxDeliveries: b, TotalBound: b, Subsets: true, NoLowerBound: true, MaxStates: 2_000_000})
		require.NoError(t, err)
		require.True(t, res.Exhausted, "state after %d events: the exact search did not finish", cut)
		if res.Trace != nil {
			require.Failf(t, "bound not admissible", "state after %d events of %s: bound %d, but %d deliveries and %d externals reproduce %s",
				cut, tr.Header.Violation.Fingerprint, h, res.Deliveries, res.Externals, want.Fingerprint)
		}
		states++
		levels += b
	}
	return states, levels
}

// lastCuts is the cuts of the last n events before tr's violation.
func lastCuts(tr *record.Trace, n int) []int {
	last := tr.Header.Violation.Event
	var cuts []int
	for k := max(0, last-n+1); k <= last; k++ {
		cuts = append(cuts, k)
	}
	return cuts
}

// TestLowerBoundExactOnFuzzedRuns checks the bound against exact optimum
// searches (see exactBelowBound) at the last states before the violation
// of fresh failing runs of every bug, with the shipped fuzz settings and
// with crash-restarts, kills and partitions injected: every "impossible"
// and every bound above the cost there really is fails here. With
// DEMI_BOUND_AUDIT=1 it checks more seeds, more states and larger costs
// (minutes).
func TestLowerBoundExactOnFuzzedRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("exact searches")
	}
	sys := raft.System()
	seeds, window, budget := []uint64{1000}, 12, 5
	if os.Getenv("DEMI_BOUND_AUDIT") != "" {
		seeds, window, budget = []uint64{1000, 2000, 3000, 4000}, 40, 7
	}
	total, traces := 0, 0
	for _, c := range raft.ShippedFuzz() {
		for _, faults := range []bool{false, true} {
			for _, seed := range seeds {
				t.Run(fmt.Sprintf("%s/faults=%v/seed=%d", c.Bug, faults, seed), func(t *testing.T) {
					cfg := c.Config
					cfg.Seed, cfg.Runs, cfg.MinDeliveries, cfg.MaxSteps = seed, 100, 0, 1500
					opts := c.Options()
					if faults {
						opts["restart-weight"], opts["kill-weight"], opts["partition-weight"] = "3", "2", "2"
					}
					tr, _, err := record.Search(context.Background(), sys, opts, cfg)
					require.NoError(t, err)
					if tr == nil {
						t.Skip("no failing run")
					}
					n, levels := exactBelowBound(t, sys, tr, lastCuts(tr, window), budget)
					t.Logf("%s: %d states, %d cost levels searched exactly", tr.Header.Violation.Fingerprint, n, levels)
					total += n
					traces++
				})
			}
		}
	}
	t.Logf("%d states on %d runs", total, traces)
	assert.Greater(t, total, 40)
}
