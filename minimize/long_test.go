package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/require"
)

// longRaft45 is the raft-45 trace of `demi fuzz --system raft --bug
// raft-45 --max-steps 8000 --externals 200 --min-deliveries 5000`: seed 21,
// the first seed from 1 that ends in a violation after at least 5,000
// deliveries (5,498 deliveries, 208 externals).
func longRaft45(tb testing.TB) (*record.System, *record.Trace) {
	tb.Helper()
	sys := raft.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{raft.Bug45: "true"}, record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 21, MaxSteps: 8000, MaxExternals: 200},
		Runs:       1, MinDeliveries: 5000})
	require.NoError(tb, err)
	require.NotNil(tb, tr)
	require.Equal(tb, 5498, tr.Header.Deliveries)
	return sys, tr
}

// TestLongTraceMinimizesThroughItsWindow: on a trace of 5,000 deliveries
// or more, the provenance stage keeps a short window before the violation,
// so even strategy sts (which never removes a delivery on its own) ends
// with a short trace.
func TestLongTraceMinimizesThroughItsWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and replays a trace of 5,000 deliveries")
	}
	sys, tr := longRaft45(t)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Strategy: "sts", Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Interrupted)
	require.Equal(t, minimize.StageProvenance, res.Stages[1].Name)
	require.Less(t, res.Stages[1].Deliveries, 200, "the window: a few hundred events at most, of %d deliveries", tr.Header.Deliveries)
	require.Less(t, res.Final.Deliveries, 200)
	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	require.True(t, rep.Reproduced)
	require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
}

// TestLongTraceHonoursCancellation cancels a minimization of a trace of
// 5,000 deliveries shortly after it starts and checks that Run returns
// promptly with a verified best-so-far trace (or, cancelled while the
// input is still being replayed, with an error). The bound is generous on
// purpose (a shared, loaded machine): 15 s, where an uncancellable stage
// ran for minutes.
func TestLongTraceHonoursCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and replays a trace of 5,000 deliveries")
	}
	sys, tr := longRaft45(t)
	for _, after := range []time.Duration{300 * time.Millisecond, 3 * time.Second} {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		timer := time.AfterFunc(after, func() { cancelled = time.Now(); cancel() })
		res, err := minimize.Run(ctx, sys, tr, minimize.Config{Budget: 10 * time.Minute, Workers: 2})
		returned := time.Now()
		timer.Stop()
		cancel()
		if cancelled.IsZero() {
			continue // finished before the cancellation: nothing to time
		}
		require.Less(t, returned.Sub(cancelled), 15*time.Second, "Run returns soon after cancellation (cancelled after %v)", after)
		if err == nil {
			require.True(t, res.Interrupted)
			require.NotNil(t, res.Trace)
		}
	}
}

// BenchmarkMinimizeLongTrace minimizes a raft-45 trace of 5,498
// deliveries (docs/minimization.md, "Long traces", for 80,000).
func BenchmarkMinimizeLongTrace(b *testing.B) {
	sys, tr := longRaft45(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Final.Deliveries+res.Final.Externals), "events")
	}
}
