package minimize_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
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

// countingRun is a minimization of tr whose context is cancelled when
// the run has taken its cancelAt-th step (every delivery and external
// event of every check is followed by one invariant check: the system's
// invariant counts them). It returns the steps taken after the
// cancellation, not counting the final verification's replay of the
// result, and whether the cancellation happened at all.
func countingRun(t *testing.T, base *record.System, tr *record.Trace, cancelAt int64) (after int64, cancelled bool) {
	t.Helper()
	sys := *base
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var steps, atCancel atomic.Int64
	invariant := base.Invariant
	sys.Invariant = func(v record.View) *record.Violation {
		if steps.Add(1) == cancelAt {
			cancel()
			// The count when the cancellation has taken effect: the other
			// worker may take steps between the Add above and cancel's
			// return (under load this goroutine can be descheduled there
			// for a whole time slice); those came before the cancellation.
			atCancel.Store(steps.Load())
		}
		return invariant(v)
	}
	res, err := minimize.Run(ctx, &sys, tr, minimize.Config{Budget: time.Hour, Workers: 2})
	total := steps.Load()
	if total < cancelAt {
		require.NoError(t, err)
		return 0, false
	}
	verify := int64(0)
	if err == nil {
		require.True(t, res.Interrupted)
		verify = int64(len(res.Trace.Events))
	} else {
		require.ErrorIs(t, err, context.Canceled)
	}
	return total - atCancel.Load() - verify, true
}

// TestCancellationIsCheckedAtEveryStep cancels minimizations at chosen
// step counts, in every part of the pipeline (the window pass of a long
// trace, the exact replay of a short one, the stages), and counts the
// steps taken after it: each of the two workers may finish the step it is
// in and check the invariant once more, never a whole schedule. Counting,
// not timing, makes this a property of the code, whatever the machine's
// load: at 5 µs to 0.2 ms a step (a 100,000-delivery Raft run), a handful
// of steps is far below a second (BenchmarkCancelLatency times it).
func TestCancellationIsCheckedAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes a trace of 5,000 deliveries and runs eight minimizations")
	}
	const bound = 8 // steps after the cancellation, all workers together
	sys, long := longRaft45(t)
	short, _, err := record.ReadFile(filepath.Join("..", "examples", "traces", "raft-45.trace"), record.NewCatalog(sys))
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		tr    *record.Trace
		steps []int64
	}{
		// 5,498 deliveries: the window pass (its checks are a few hundred
		// steps each), then the stages on the window.
		{"long", long, []int64{1, 40, 700, 20_000}},
		// 1,930 deliveries: the exact replay of the input, provenance's
		// full-length checks, then the stages.
		{"shipped", short, []int64{1, 1_000, 5_000, 60_000}},
	} {
		for _, at := range c.steps {
			after, cancelled := countingRun(t, sys, c.tr, at)
			require.True(t, cancelled, "%s: the run took fewer than %d steps", c.name, at)
			require.LessOrEqual(t, after, int64(bound), "%s: steps taken after a cancellation at step %d", c.name, at)
		}
	}
}

// BenchmarkCancelLatency measures the wall time from a cancellation to
// the return of minimize.Run (its final verification included) on the
// 5,498-delivery trace, cancelled in the window pass (step 700) and in
// the stages (step 20,000); the metric is ms-to-return. For the
// 100,000-delivery traces, see docs/minimization.md, "Long traces".
func BenchmarkCancelLatency(b *testing.B) {
	base, tr := longRaft45(b)
	for _, at := range []int64{700, 20_000} {
		b.Run(fmt.Sprintf("step-%d", at), func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				sys := *base
				ctx, cancel := context.WithCancel(context.Background())
				var steps atomic.Int64
				var cancelled atomic.Int64
				sys.Invariant = func(v record.View) *record.Violation {
					if steps.Add(1) == at {
						cancelled.Store(time.Now().UnixNano())
						cancel()
					}
					return base.Invariant(v)
				}
				_, _ = minimize.Run(ctx, &sys, tr, minimize.Config{Budget: time.Hour, Workers: 2})
				if c := cancelled.Load(); c > 0 {
					total += time.Since(time.Unix(0, c))
				}
				cancel()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-return")
		})
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

// TestBudgetBoundsTheInputsReplay: the budget counts from the start, the
// exact replay of the input included; a budget that runs out before the
// input's violation is reproduced is an error that says so.
func TestBudgetBoundsTheInputsReplay(t *testing.T) {
	sys := raft.System()
	tr, _, err := record.ReadFile(filepath.Join("..", "examples", "traces", "raft-45.trace"), record.NewCatalog(sys))
	require.NoError(t, err)
	_, err = minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Nanosecond, Workers: 1})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualError(t, err, "minimize: the budget of 1ns ran out while replaying the input, before its violation was reproduced: context deadline exceeded")
}
