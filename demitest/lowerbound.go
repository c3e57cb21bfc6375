package demitest

import (
	"testing"

	"github.com/demi-project/demi/record"
)

// LowerBoundAlong replays tr, a trace of sys that ends at its violation,
// and returns for every state on the way (after 0, 1, …, n events) the
// system's lower bound (record.System.LowerBound, asked for tr's
// violation, with tr's later external events to come) and what tr really
// spends from there to its violation: its deliveries, plus its external
// events when subsets is set (the cost of an optimum search over
// subsequences of the external events). A bound is admissible along tr
// when bounds[k] <= costs[k] for every k; CheckLowerBound checks that.
//
// It fails tb when tr does not replay exactly or shows a violation before
// its end (its costs would not be what it spends), or sys has no bound.
func LowerBoundAlong(tb testing.TB, sys *record.System, tr *record.Trace, subsets bool) (bounds, costs []int) {
	tb.Helper()
	if sys.LowerBound == nil {
		tb.Fatalf("system %s has no LowerBound", sys.Name)
	}
	sim, err := tr.Setup(sys).NewSim()
	if err != nil {
		tb.Fatalf("lower bound along the trace: %v", err)
	}
	if tr.Header.Violation == nil || tr.Header.Violation.Event >= len(tr.Events) {
		tb.Fatalf("lower bound along the trace: the trace records no violation at one of its events")
	}
	last := tr.Header.Violation.Event
	cost := make([]int, last+2) // cost[k]: what events k..last spend
	for k := last; k >= 0; k-- {
		cost[k] = cost[k+1]
		if e := tr.Events[k]; e.Kind == record.Deliver || subsets {
			cost[k]++
		}
	}
	// The external events up to the violation and where each is: the
	// future of state k is the suffix of those at index k or later.
	var exts []record.Event
	var at []int
	for i, e := range tr.Events[:last+1] {
		if e.Kind.IsExternal() {
			exts, at = append(exts, e), append(at, i)
		}
	}
	next := 0 // the first external event at index k or later
	bound := func(k int) int {
		for next < len(at) && at[next] < k {
			next++
		}
		return sys.LowerBound(record.Goal{View: sim.View(), InFlight: sim.InFlight(), Want: tr.Header.Violation,
			Future: exts[next:], CountExternals: subsets})
	}
	for k := 0; k <= last; k++ {
		if v := sim.Check(); v != nil {
			tb.Fatalf("lower bound along the trace: violation %s before event %d", v.Fingerprint, k)
		}
		bounds, costs = append(bounds, bound(k)), append(costs, cost[k])
		e := tr.Events[k]
		if e.Kind == record.Deliver {
			err = sim.Deliver(e.ID)
		} else {
			err = sim.Apply(e)
		}
		if err != nil {
			tb.Fatalf("lower bound along the trace: event %d: %v", k, err)
		}
	}
	if v := sim.Check(); !v.Same(tr.Header.Violation) {
		tb.Fatalf("lower bound along the trace: the trace does not reproduce its violation %s", tr.Header.Violation.Fingerprint)
	}
	return append(bounds, bound(last+1)), append(costs, 0)
}

// CheckLowerBound checks that sys's lower bound is admissible along tr,
// counting deliveries alone and deliveries plus external events: it fails
// tb at the first state where the bound exceeds what tr still spends, or
// is not 0 at the violation. It returns the bound at tr's start, without
// and with external events, for a test to pin what the bound sees there.
//
// A bound that is once too high makes an optimum search call a larger
// reproducer optimal; checking it along the traces a system ships, and
// along fuzzed runs that reach states those never do, is the test every
// LowerBound needs.
func CheckLowerBound(tb testing.TB, sys *record.System, tr *record.Trace) (start [2]int) {
	tb.Helper()
	for i, subsets := range []bool{false, true} {
		bounds, costs := LowerBoundAlong(tb, sys, tr, subsets)
		for k := range bounds {
			if bounds[k] > costs[k] {
				tb.Fatalf("lower bound above the cost left after %d events (external events counted: %v): %d > %d",
					k, subsets, bounds[k], costs[k])
			}
		}
		if b := bounds[len(bounds)-1]; b != 0 {
			tb.Fatalf("lower bound %d at the violation itself (external events counted: %v)", b, subsets)
		}
		start[i] = bounds[0]
	}
	return start
}
