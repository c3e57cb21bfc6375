package raft_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// BenchmarkDriverBack measures stepping back one event at the end of a
// shipped fuzz trace of about 2,000 events (raft-45: 1,930 deliveries and
// 108 external events): record.Driver.Back re-executes the run from the
// start. The step-through replay needs this to feel instant (well under
// 100 ms).
func BenchmarkDriverBack(b *testing.B) {
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, "raft-45.trace"), record.NewCatalog(raft.System()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: tr.Header.Violation})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Run(ctx); err != nil || !d.Found() {
		b.Fatalf("the trace does not replay: %v %v", err, d.Divergence())
	}
	n := len(d.Sim().Events())
	if n < 2000 {
		b.Fatalf("%d events, want about 2,000", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Back(ctx, 1); err != nil {
			b.Fatal(err)
		}
		if _, err := d.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "events")
}
