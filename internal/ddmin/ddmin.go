// Package ddmin is delta debugging (Zeller and Hildebrandt; the DEMi
// paper's Appendix A) over a set of items: the minimizer's ddmin passes
// run it over a trace's external events or deliveries.
package ddmin

import (
	"context"
	"fmt"
	"slices"
)

// Minimize is delta debugging (the paper's Appendix A, Figure 3) over items,
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
func Minimize(ctx context.Context, items []int, test func(ctx context.Context, cands [][]int) (int, error)) ([]int, error) {
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
		i, err := try([][]int{Union(e1, r), Union(e2, r)})
		if err != nil {
			return nil, err
		}
		switch i {
		case 0:
			return rec(e1, r)
		case 1:
			return rec(e2, r)
		}
		m1, err := rec(e1, Union(e2, r))
		if err != nil {
			return nil, err
		}
		m2, err := rec(e2, Union(m1, r))
		if err != nil {
			return nil, err
		}
		return Union(m1, m2), nil
	}
	return rec(slices.Clone(items), nil)
}

// Union returns the sorted set of the items of a and b.
func Union(a, b []int) []int {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
