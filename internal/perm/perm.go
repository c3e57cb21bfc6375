// Package perm enumerates the permutations of small index sets, for the
// symmetry code of record (which actors a violation maps onto) and of
// minimize (which pairs may break at the same step).
package perm

import "slices"

// Orders returns the permutations of 0..n-1 in lexicographic order, the
// identity first: n! slices, so callers bound n.
func Orders(n int) [][]int {
	var out [][]int
	cur := make([]int, n)
	used := make([]bool, n)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			out = append(out, slices.Clone(cur))
			return
		}
		for v := range n {
			if !used[v] {
				used[v], cur[k] = true, v
				rec(k + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return out
}
