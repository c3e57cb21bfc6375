package raft_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
			require.NoError(t, runEvent(sim, tr.Events[k]))
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
// and every bound above the cost there really is fails here (within
// the costs searched: 5). With DEMI_BOUND_AUDIT=1 it checks two seeds,
// more states, and at each state off the runs every target the bound
// knows, not only the run's violation (about 5 minutes per bug on a
// loaded 2-core machine).
func TestLowerBoundExactOnFuzzedRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("exact searches")
	}
	sys := raft.System()
	seeds, window, walks, budget, all := []uint64{1000}, 12, 2, 5, false
	if os.Getenv("DEMI_BOUND_AUDIT") != "" {
		seeds, window, walks, budget, all = []uint64{1000, 2000}, 16, 3, 5, true
	}
	total, traces := 0, 0
	for _, c := range raft.ShippedFuzz() {
		for _, faults := range []bool{false, true} {
			for _, seed := range seeds {
				t.Run(fmt.Sprintf("%s/faults=%v/seed=%d", c.Bug, faults, seed), func(t *testing.T) {
					tr := fuzzedRun(t, sys, c, seed, faults)
					if tr == nil {
						t.Skip("no failing run")
					}
					n, levels := exactBelowBound(t, sys, tr, lastCuts(tr, window), budget)
					targets := []*record.Violation{tr.Header.Violation}
					if all {
						sim, err := tr.Setup(sys).NewSim()
						require.NoError(t, err)
						targets = boundTargets(sim.Members())
					}
					off := exactOffTrace(t, sys, tr, lastCuts(tr, window), walks, 3, budget, targets)
					t.Logf("%s: %d states on the run (%d cost levels searched exactly), %d off it", tr.Header.Violation.Fingerprint, n, levels, off)
					n += off
					total += n
					traces++
				})
			}
		}
	}
	t.Logf("%d states on %d runs", total, traces)
	assert.Greater(t, total, 40)
}

// exactOffTrace is exactBelowBound at states off tr: from the state after
// each cut, walks random deliveries (walks of them, steps each, seeded by
// the cut) and checks the bound where each walk ends against an exact
// search of what still reproduces tr's violation from there, with tr's
// external events after the cut still to come. Off the trace is where
// the bound meets states no shipped or fuzzed trace passes through (two
// leaders of different terms, a leader about to step down). It returns
// the states checked.
func exactOffTrace(t *testing.T, sys *record.System, tr *record.Trace, cuts []int, walks, steps, budget int, targets []*record.Violation) int {
	t.Helper()
	sim, err := tr.Setup(sys).NewSim()
	require.NoError(t, err)
	checked, k := 0, 0
	for _, cut := range cuts {
		for ; k < cut; k++ {
			require.NoError(t, runEvent(sim, tr.Events[k]))
		}
		fut := future(tr, cut)
		rng := rand.New(rand.NewPCG(uint64(cut), 7))
		for range walks {
			w := sim.Fork()
			for range steps {
				en := w.Enabled(nil)
				if len(en) == 0 || w.Check() != nil {
					break
				}
				require.NoError(t, w.Deliver(en[rng.IntN(len(en))].ID))
			}
			if w.Check() != nil {
				continue
			}
			for _, want := range targets {
				h := sys.LowerBound(record.Goal{View: w.View(), InFlight: w.InFlight(), Want: want, Future: fut, CountExternals: true})
				b := min(h-1, budget)
				if b < 1 {
					continue
				}
				at := w.Trace(want)
				at.Events = append(at.Events, fut...)
				res, err := optimal.SearchFrom(context.Background(), sys, at, len(at.Events)-len(fut), optimal.Config{
					MaxDeliveries: b, TotalBound: b, Subsets: true, NoLowerBound: true, MaxStates: 2_000_000})
				require.NoError(t, err)
				require.True(t, res.Exhausted)
				if res.Trace != nil {
					require.Failf(t, "bound not admissible", "%d random deliveries off the state after %d events: bound %d, but %d deliveries and %d externals reproduce %s",
						steps, cut, h, res.Deliveries, res.Externals, want.Fingerprint)
				}
				checked++
			}
		}
	}
	return checked
}

// boundTargets is every violation the bound knows for members ms: two
// leaders of a term, two logs breaking Log Matching, a leader lacking a
// committed entry, a leader's nextIndex beyond its log.
func boundTargets(ms []record.ActorID) []*record.Violation {
	var out []*record.Violation
	for i, a := range ms {
		for _, b := range ms[i+1:] {
			out = append(out, record.Want(fmt.Sprintf("%s(%s,%s)", raft.ElectionSafety, a, b)),
				record.Want(fmt.Sprintf("%s(%s,%s)", raft.LogMatching, a, b)))
		}
		out = append(out, record.Want(fmt.Sprintf("%s(%s)", raft.LeaderCompleteness, a)),
			record.Want(fmt.Sprintf("panic: assertion failed: leader %s has a nextIndex beyond its log @ raft.assertf", a)))
	}
	return out
}
