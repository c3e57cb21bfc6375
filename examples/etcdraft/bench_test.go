package etcdraft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/replay"
)

// BenchmarkReplay replays each bug's shipped fuzz trace (about 1,500
// deliveries: long runs, the Ready handling, the storage writes and the
// invariants after every event dominate) and its minimized trace (a dozen
// deliveries: starting the members dominates, as in the many short runs
// late stages of a minimization check). One op is one replay; the
// per-event cost is ns/op divided by the events of the trace.
func BenchmarkReplay(b *testing.B) {
	for _, bug := range etcdraft.BugNames() {
		for _, kind := range []string{".trace", ".min.trace"} {
			name := etcdraft.TraceName(bug) + kind
			b.Run(name, func(b *testing.B) {
				tr, sys := read(b, name)
				b.ReportAllocs()
				for b.Loop() {
					r, err := replay.Run(context.Background(), sys, tr)
					require.NoError(b, err)
					require.True(b, r.Reproduced)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tr.Events)), "ns/event")
			})
		}
	}
}
