package optimal_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// BenchmarkSearch searches the shipped minimized raft-46 trace (3 members,
// E:6): with its external events up to 8 deliveries, with and without the
// commutation filter, and over subsets of its external events up to a cost
// of 13; and the 19-delivery paxos trace (5 members) to its end. It
// reports distinct states, expansions, events executed and expansions per
// second (the search's speed).
func BenchmarkSearch(b *testing.B) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		cfg  optimal.Config
	}{
		{"schedules", optimal.Config{NoLowerBound: true, MaxDeliveries: 8}},
		{"schedules-no-commutation", optimal.WithoutCommutation(optimal.Config{NoLowerBound: true, MaxDeliveries: 8})},
		{"subsets", optimal.Config{NoLowerBound: true, MaxDeliveries: 8, Subsets: true, TotalBound: 13}},
	} {
		b.Run(m.name, func(b *testing.B) {
			var res *optimal.Result
			b.ReportAllocs()
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
	// raft-66: the shipped minimized trace (3 members, E:7, 21 events),
	// over subsets of its external events up to a cost of 13: the kind of
	// search the optimum study runs, cut short.
	rtr, rsys, err := record.ReadFile("../examples/traces/raft-66.min.trace", record.NewCatalog(raft.System()))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("raft-66", func(b *testing.B) {
		var res *optimal.Result
		for b.Loop() {
			res, err = optimal.Search(context.Background(), rsys, rtr, optimal.Config{NoLowerBound: true, MaxDeliveries: 13, Subsets: true, TotalBound: 13})
			if err != nil {
				b.Fatal(err)
			}
		}
		if res.Trace != nil || !res.Exhausted || res.Searched != 13 {
			b.Fatalf("raft-66: got %v, exhausted %v, searched %d; want none, true, 13", res.Trace != nil, res.Exhausted, res.Searched)
		}
		b.ReportMetric(float64(res.States), "states")
		b.ReportMetric(float64(res.Expanded), "expanded")
		b.ReportMetric(float64(res.Expanded)*float64(b.N)/b.Elapsed().Seconds(), "expanded/s")
	})
	// paxos: the 19-delivery minimized trace of a five-member consensus
	// protocol, searched to the end (an 18-delivery schedule exists).
	ptr, psys, err := record.ReadFile("../examples/traces/paxos-accept-below-promise.min.trace", record.NewCatalog(paxos.System()))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("paxos", func(b *testing.B) {
		var res *optimal.Result
		for b.Loop() {
			res, err = optimal.Search(context.Background(), psys, ptr, optimal.Config{NoLowerBound: true, MaxDeliveries: 19})
			if err != nil {
				b.Fatal(err)
			}
		}
		if res.Deliveries != 18 || !res.Exhausted {
			b.Fatalf("paxos: got %d deliveries, exhausted %v; want 18, true", res.Deliveries, res.Exhausted)
		}
		b.ReportMetric(float64(res.States), "states")
		b.ReportMetric(float64(res.Expanded), "expanded")
		b.ReportMetric(float64(res.Expanded)*float64(b.N)/b.Elapsed().Seconds(), "expanded/s")
	})
}
