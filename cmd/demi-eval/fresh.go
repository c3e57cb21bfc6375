package main

import (
	"slices"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/raft"
)

// freshCases returns the fresh-seed study's cases: the fuzz run of every
// raft bug's shipped trace (raft.ShippedFuzz), restricted to bugs when
// given.
func freshCases(bugs []string) []eval.FreshCase {
	var out []eval.FreshCase
	for _, c := range raft.ShippedFuzz() {
		if len(bugs) > 0 && !slices.Contains(bugs, c.Bug) {
			continue
		}
		out = append(out, eval.FreshCase{Bug: c.Bug, System: "raft", Options: c.Options(), Search: c.Config})
	}
	return out
}
