package optimal_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// BenchmarkSearch runs the optimum search over the shipped minimized
// raft-46 trace up to 5 deliveries (3,411 states expanded, each replayed
// from the start): the cost of following a schedule per state.
func BenchmarkSearch(b *testing.B) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	if err != nil {
		b.Fatal(err)
	}
	states := 0
	b.ReportAllocs()
	for b.Loop() {
		res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{MaxDeliveries: 5})
		if err != nil {
			b.Fatal(err)
		}
		states = res.States
	}
	b.ReportMetric(float64(states), "states")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*states), "ns/state")
}

// BenchmarkSearchModes compares, on the shipped minimized raft-46 trace up
// to 6 deliveries, the history search, the global-state search and the
// search over subsets of the external events: distinct states, schedules
// replayed, and states expanded per second.
func BenchmarkSearchModes(b *testing.B) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		cfg  optimal.Config
	}{
		{"history", optimal.Config{MaxDeliveries: 6}},
		{"global", optimal.Config{MaxDeliveries: 6, Global: true}},
		{"subsets", optimal.Config{MaxDeliveries: 6, Subsets: true, TotalBound: 12}},
	} {
		b.Run(m.name, func(b *testing.B) {
			var res *optimal.Result
			for b.Loop() {
				res, err = optimal.Search(context.Background(), sys, tr, m.cfg)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.States), "states")
			b.ReportMetric(float64(res.Expanded), "expanded")
			b.ReportMetric(float64(res.Steps), "steps")
			b.ReportMetric(float64(res.Expanded)*float64(b.N)/b.Elapsed().Seconds(), "expanded/s")
		})
	}
}
