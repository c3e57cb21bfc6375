package main

import (
	"slices"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// longCases returns the long-trace study's cases for traces of at least
// deliveries deliveries: for every raft bug (restricted to bugs when
// given), the options of its shipped fuzz run (raft.ShippedFuzz) with the
// long flags: seeds from 1, 1.5x deliveries steps at most, one external
// event per 50 deliveries, the shipped run's timer probability and
// invariant checks, and deliveries as the minimum. With deliveries 100,000
// that is `demi fuzz --system raft --bug B --max-steps 150000 --externals
// 2000 --min-deliveries 100000` (docs/minimization.md, "Long traces").
func longCases(bugs []string, deliveries int) []eval.LongCase {
	var out []eval.LongCase
	for _, c := range raft.ShippedFuzz() {
		if len(bugs) > 0 && !slices.Contains(bugs, c.Bug) {
			continue
		}
		out = append(out, eval.LongCase{Bug: c.Bug, System: "raft", Options: c.Options(), Search: longSearch(c.Config, deliveries)})
	}
	return out
}

// longSearch is shipped, a shipped fuzz run's search, with the long flags
// for traces of at least deliveries deliveries (see longCases).
func longSearch(shipped record.SearchConfig, deliveries int) record.SearchConfig {
	return record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: deliveries * 3 / 2, MaxExternals: max(deliveries/50, 1),
			TimerProb: shipped.TimerProb, CheckEvery: shipped.CheckEvery},
		MinDeliveries: deliveries,
	}
}
