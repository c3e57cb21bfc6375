package step

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

func open(t testing.TB, path string) (Session, *record.System, *record.Trace) {
	t.Helper()
	tr, sys, err := record.ReadFile(path, catalog())
	require.NoError(t, err)
	s, err := Open(context.Background(), sys, tr, false)
	require.NoError(t, err)
	return s, sys, tr
}

// Going back (re-execution) and forward give the very same points as a
// fresh session going straight there.
func TestAtIsTheSameFromAnywhere(t *testing.T) {
	ctx := context.Background()
	s, _, tr := open(t, "../../examples/traces/raft-45.min.trace")
	require.Equal(t, len(tr.Events), s.Len())
	order := []int{20, 0, 14, 13, 5, 20, 19, 1, 12}
	for _, k := range order {
		got, err := s.At(ctx, k)
		require.NoError(t, err)
		fresh, _, _ := open(t, "../../examples/traces/raft-45.min.trace")
		want, err := fresh.At(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, want, got, "step %d", k)
		assert.Equal(t, tr.Events[k].String(), got.Event.String())
	}
	last, err := s.At(ctx, 20)
	require.NoError(t, err)
	require.NotNil(t, last.Check)
	assert.Equal(t, tr.Header.Violation.Fingerprint, last.Check.Fingerprint)
	before, err := s.At(ctx, 19)
	require.NoError(t, err)
	assert.Nil(t, before.Check)
	_, err = s.At(ctx, 21)
	assert.EqualError(t, err, "no step 21 (steps 0 to 20)")
}

func TestOpenFindsTheViolation(t *testing.T) {
	s, _, tr := open(t, "../../examples/traces/raft-45.min.trace")
	h := s.Header()
	require.NotNil(t, h.Violation)
	assert.Equal(t, *tr.Header.Violation, *h.Violation)
	// Trace is a copy: changing it leaves the session alone.
	t1 := s.Trace()
	t1.Events[0] = record.Event{}
	t1.Header.Violation.Event = 99
	assert.Equal(t, record.Start, s.Event(0).Kind)
	assert.Equal(t, 20, s.Header().Violation.Event)
}

func TestOpenRejectsATraceThatDoesNotReplay(t *testing.T) {
	tr, sys, err := record.ReadFile("../../examples/traces/raft-45.min.trace", catalog())
	require.NoError(t, err)
	tr.Events = append(tr.Events[:10:10], tr.Events[12:]...) // lose two deliveries
	_, err = Open(context.Background(), sys, tr, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the trace does not replay: ")
	assert.Contains(t, err.Error(), "event 11")
}

func TestWhatIfFollowsTheRestAndReplays(t *testing.T) {
	ctx := context.Background()
	s, sys, _ := open(t, "../../examples/traces/raft-45.min.trace")
	p, err := s.At(ctx, 16)
	require.NoError(t, err)
	var other record.MsgID
	for _, q := range p.Pending {
		if q.Deliverable && q.ID != s.Event(17).ID && q.Timer == "" {
			other = q.ID
			break
		}
	}
	require.Equal(t, record.MsgID(11), other)
	next, o, err := s.WhatIf(ctx, 16, Change{Event: record.Event{Kind: record.Deliver, ID: other}})
	require.NoError(t, err)
	assert.Equal(t, 17, o.At)
	assert.Equal(t, other, next.Event(17).ID)
	assert.Equal(t, 4, o.Followed)
	assert.Equal(t, 0, o.Skipped)
	require.NotNil(t, o.Violation)
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", o.Violation.Fingerprint)
	assert.Equal(t, 21, o.Violation.Event)
	assert.Equal(t, 22, next.Len())
	// The first 17 steps are the original's.
	for i := 0; i <= 16; i++ {
		assert.Equal(t, s.Event(i).String(), next.Event(i).String())
	}
	// The new execution replays exactly.
	res, err := replay.Run(ctx, sys, next.Trace())
	require.NoError(t, err)
	assert.True(t, res.Reproduced)
	assert.Equal(t, 22, res.Events)
	// The old one is untouched.
	assert.Equal(t, 21, s.Len())
}

func TestWhatIfDropAndKill(t *testing.T) {
	ctx := context.Background()
	s, sys, _ := open(t, "../../examples/traces/raft-45.min.trace")
	next, o, err := s.WhatIf(ctx, 14, Change{Drop: 12})
	require.NoError(t, err)
	assert.Equal(t, -1, o.At)
	assert.Nil(t, o.Violation)
	assert.Equal(t, Outcome{Change: Change{Drop: 12}, At: -1, Followed: 2, Skipped: 4}, *o)
	for i := 15; i < next.Len(); i++ {
		assert.NotEqual(t, record.MsgID(12), next.Event(i).ID, "step %d delivers the dropped message", i)
	}
	res, err := replay.Run(ctx, sys, next.Trace())
	require.NoError(t, err)
	assert.Nil(t, res.Divergence)
	assert.Equal(t, next.Len(), res.Events)

	_, _, err = s.WhatIf(ctx, 14, Change{Drop: 999})
	assert.EqualError(t, err, "message #999 is not pending at step 14")

	next, o, err = s.WhatIf(ctx, 19, Change{Event: record.KillEvent("raft-2")})
	require.NoError(t, err)
	assert.Equal(t, 20, o.At)
	assert.Equal(t, record.Kill, next.Event(20).Kind)
	assert.Nil(t, o.Violation, "raft-2 never hears its last vote")
	assert.Equal(t, 1, o.Skipped)
}

// BenchmarkStepBack is one step back on the 2,038-event raft-45 trace,
// from its end, to a step not seen before: the run is re-executed from the
// start to a few steps before (keeping those points for the next steps
// back), and the screen rebuilt, as the terminal UI does on "p".
func BenchmarkStepBack(b *testing.B) {
	ctx := context.Background()
	tr, sys, err := record.ReadFile("../../examples/traces/raft-45.trace", catalog())
	require.NoError(b, err)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, sys, tr, false)
		require.NoError(b, err)
		require.Equal(b, 2038, s.Len())
		w, err := NewWalk(ctx, sys, "raft-45.trace", s)
		require.NoError(b, err)
		w.Screen(ctx) // builds the round layout once
		require.NoError(b, w.Exec(ctx, Command{Op: OpGoto, N: s.Len() - 1}))
		b.StartTimer()
		require.NoError(b, w.Exec(ctx, Command{Op: OpPrev, N: 1}))
		_ = w.Screen(ctx).Text(ScriptWidth)
	}
}

// BenchmarkStepBackRepeated is the average of 64 steps back in a row from
// the end of the same trace (the first of every backBatch+1 re-executes).
func BenchmarkStepBackRepeated(b *testing.B) {
	ctx := context.Background()
	tr, sys, err := record.ReadFile("../../examples/traces/raft-45.trace", catalog())
	require.NoError(b, err)
	const n = 64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, sys, tr, false)
		require.NoError(b, err)
		w, err := NewWalk(ctx, sys, "raft-45.trace", s)
		require.NoError(b, err)
		w.Screen(ctx)
		require.NoError(b, w.Exec(ctx, Command{Op: OpGoto, N: s.Len() - 1}))
		b.StartTimer()
		for range n {
			require.NoError(b, w.Exec(ctx, Command{Op: OpPrev, N: 1}))
			_ = w.Screen(ctx).Text(ScriptWidth)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/back")
}

// BenchmarkStepForward is a step forward in the middle of the same trace.
func BenchmarkStepForward(b *testing.B) {
	ctx := context.Background()
	tr, sys, err := record.ReadFile("../../examples/traces/raft-45.trace", catalog())
	require.NoError(b, err)
	s, err := Open(ctx, sys, tr, false)
	require.NoError(b, err)
	w, err := NewWalk(ctx, sys, "raft-45.trace", s)
	require.NoError(b, err)
	w.Screen(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		require.NoError(b, w.Exec(ctx, Command{Op: OpGoto, N: 1000 + i%1000}))
		b.StartTimer()
		require.NoError(b, w.Exec(ctx, Command{Op: OpNext, N: 1}))
		_ = w.Screen(ctx).Text(ScriptWidth)
	}
}

// BenchmarkOpen is opening the 2,038-event trace: one replay to find the
// violation.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	tr, sys, err := record.ReadFile("../../examples/traces/raft-45.trace", catalog())
	require.NoError(b, err)
	for i := 0; i < b.N; i++ {
		s, err := Open(ctx, sys, tr, false)
		require.NoError(b, err)
		_, err = NewWalk(ctx, sys, "raft-45.trace", s)
		require.NoError(b, err)
	}
}

// A trace that ends in a handler's panic: the panic is its violation, and
// the walk can go to it, back from it and what-if before it.
func TestPanickingTrace(t *testing.T) {
	ctx := context.Background()
	sys := catalog().Systems()[1]
	require.Equal(t, "tokenring", sys.Name)
	tr, err := record.Fuzz(ctx, sys, record.Options{"panic-on-lap": "true"}, record.FuzzConfig{Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	require.Contains(t, tr.Header.Violation.Fingerprint, "panic: ")
	s, err := Open(ctx, sys, tr, false)
	require.NoError(t, err)
	require.NotNil(t, s.Header().Violation)
	last := s.Len() - 1
	assert.Equal(t, last, s.Header().Violation.Event)
	p, err := s.At(ctx, last)
	require.NoError(t, err)
	require.NotNil(t, p.Check)
	assert.Equal(t, tr.Header.Violation.Fingerprint, p.Check.Fingerprint)
	p, err = s.At(ctx, 0)
	require.NoError(t, err, "back from a halted run")
	assert.Nil(t, p.Check)
	p, err = s.At(ctx, last)
	require.NoError(t, err)
	require.NotNil(t, p.Check)
	_, o, err := s.WhatIf(ctx, last-1, Change{Event: record.KillEvent(s.Event(last).To)})
	require.NoError(t, err)
	assert.Nil(t, o.Violation, "the actor that panicked is dead")
}
