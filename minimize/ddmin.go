package minimize

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// ddminPass is ddmin over the best trace's external units, or deliveries
// when internals, checked in mode with at most maxSched schedules (0:
// budgetFor), the deliveries from wildFrom on wildcards (-1: none).
func (m *minimizer) ddminPass(ctx context.Context, internals bool, mode dpor.Mode, maxSched, wildFrom int) error {
	base := m.snapshotBest()
	items, plan := ddminSets(dpor.FromEvents(m.fp, base.Events), base.Events, internals, wildFrom)
	_, err := ddmin(ctx, items, func(ctx context.Context, cands [][]int) (int, error) {
		i, tr, err := m.first(ctx, len(cands), mode, cmp.Or(maxSched, m.budgetFor()), func(_ *fingerprint.Fingerprinter, k int) dpor.Plan {
			return plan(cands[k])
		})
		m.offer(tr)
		return i, err
	})
	return err
}

// ddminSets returns the items of ddmin over events (the external units, or
// every delivery when internals) and the plan of a set of items (wildcards
// from wildFrom), every event of the other kind kept (but validExternals).
func ddminSets(bp dpor.Plan, events []record.Event, internals bool, wildFrom int) (items []int, plan func(set []int) dpor.Plan) {
	dels := deliveryIndices(events)
	var units [][]int
	if internals {
		for _, d := range dels {
			units = append(units, []int{d})
		}
	} else {
		units = externalUnits(events)
	}
	var ext []int
	for i, e := range events {
		if e.Kind.IsExternal() {
			ext = append(ext, i)
		}
	}
	items = make([]int, len(units))
	for i := range items {
		items[i] = i
	}
	return items, func(set []int) dpor.Plan {
		var idx []int
		for _, u := range set {
			idx = append(idx, units[u]...)
		}
		slices.Sort(idx)
		if internals {
			return planOf(bp, union(ext, idx), wildFrom)
		}
		return planOf(bp, union(validExternals(events, idx), dels), wildFrom)
	}
}

// ddmin is delta debugging (the paper's Appendix A, Figure 3) over items,
// assuming test(items) reproduces (test checks candidate sets in order and
// returns the index of the first that reproduces the violation, or -1):
//
//	ddmin2(E, R) = E                               if |E| = 1
//	             = ddmin2(E1, R)                   if test(E1 ∪ R)
//	             = ddmin2(E2, R)                   if test(E2 ∪ R)
//	             = E1' ∪ ddmin2(E2, E1' ∪ R)       otherwise, E1' = ddmin2(E1, E2 ∪ R)
//
// The interference case minimizes E2 against the minimized E1', so every
// returned set, with its R, has been seen to reproduce. Failing sets are
// memoized.
func ddmin(ctx context.Context, items []int, test func(ctx context.Context, cands [][]int) (int, error)) ([]int, error) {
	memo := map[string]bool{}
	key := func(s []int) string { return fmt.Sprint(s) }
	// try tests the candidates not known to fail; returns the first success.
	try := func(cands [][]int) (int, error) {
		var live [][]int
		var at []int
		for i, c := range cands {
			slices.Sort(c)
			if !memo[key(c)] {
				live = append(live, c)
				at = append(at, i)
			}
		}
		if len(live) == 0 {
			return -1, nil
		}
		i, err := test(ctx, live)
		if err != nil {
			return -1, err
		}
		for k := range live {
			if i < 0 || k < i {
				memo[key(live[k])] = true
			}
		}
		if i < 0 {
			return -1, nil
		}
		return at[i], nil
	}
	var rec func(e, r []int) ([]int, error)
	rec = func(e, r []int) ([]int, error) {
		if len(e) <= 1 {
			return e, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := len(e) / 2
		e1, e2 := e[:h:h], e[h:]
		i, err := try([][]int{union(e1, r), union(e2, r)})
		if err != nil {
			return nil, err
		}
		switch i {
		case 0:
			return rec(e1, r)
		case 1:
			return rec(e2, r)
		}
		m1, err := rec(e1, union(e2, r))
		if err != nil {
			return nil, err
		}
		m2, err := rec(e2, union(m1, r))
		if err != nil {
			return nil, err
		}
		return union(m1, m2), nil
	}
	return rec(slices.Clone(items), nil)
}

func union(a, b []int) []int {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
