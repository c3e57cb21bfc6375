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
// 2000 --min-deliveries 100000` (docs/minimization.md, "Long traces"),
// plus --external-prob for the bugs in longExternalProb.
func longCases(bugs []string, deliveries int) []eval.LongCase {
	var out []eval.LongCase
	for _, c := range raft.ShippedFuzz() {
		if len(bugs) > 0 && !slices.Contains(bugs, c.Bug) {
			continue
		}
		sc := longSearch(c.Config, deliveries)
		if x, ok := longExternals[c.Bug]; ok {
			sc.ExternalProb = min(1, x.prob*100_000/float64(deliveries))
			if x.externals > 0 {
				sc.MaxExternals = max(x.externals*deliveries/100_000, 1)
			}
		}
		out = append(out, eval.LongCase{Bug: c.Bug, System: "raft", Options: c.Options(), Search: sc})
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

// longExternals is, for the bugs that need it, the chance that a step
// injects an external event in a run of 100,000 deliveries, and the most
// external events (0: the default, one per 50 deliveries), both scaled for
// other lengths. With the default chance (2 x externals / max-steps,
// 0.027), raft-42 and raft-66 break their invariant after about 14,000 and
// 30,000 deliveries, so that hardly any run lasts 100,000 (none in 207 and
// 45 seeds); fewer client commands make their violations later: raft-42 at
// 0.01 broke it after 13,036, 76,898, 43,416, 116,284 and 24,040
// deliveries in seeds 1-10 (the other five none in 150,000), raft-66 at
// 0.004 after 74,452, 92,902 and 109,550 in seeds 1-3 (seed 4: none).
// raft-58a needs more: with its shipped run's crash-restarts, the default
// gave no violation in 150,000 deliveries (seeds 1-4), 0.1 with 15,000
// externals one after 57,986, 59,930 and 23,081 (seeds 1-3), 0.05 none
// (seeds 1-5), 0.07 with 10,000 after 45,808, 96,754 and 6,111 (seeds 2, 3
// and 7 of 1-7). raft-58b breaks its invariant in the first few thousand
// deliveries or never (its bug needs an AppendEntries with prevLogIndex 1),
// with any flags tried.
var longExternals = map[string]struct {
	prob      float64
	externals int
}{
	raft.Bug42:  {prob: 0.01},
	raft.Bug66:  {prob: 0.004},
	raft.Bug58a: {prob: 0.07, externals: 10_000},
}
