package etcdraft_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// timed is the options of a run with virtual time and the
// apply-before-commit bug.
var timed = record.Options{etcdraft.OptVirtualTime: "true", etcdraft.BugApplyBeforeCommit: "true"}

// TestVirtualTimeFuzzReplayMinimize: demi fuzz --opt virtual-time=true
// finds apply-before-commit (the first seed of the default mode does), the
// trace records each delivery's time and replays, and minimization keeps
// the time model (its header keeps the option) while it shrinks the trace
// and may fire timers early.
func TestVirtualTimeFuzzReplayMinimize(t *testing.T) {
	sys := etcdraft.System()
	ctx := context.Background()
	tr, runs, err := record.Search(ctx, sys, timed, record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 20, Mode: record.Swarm})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in %d runs", runs)
	assert.Equal(t, "true", tr.Header.OptionMap()[etcdraft.OptVirtualTime])

	// The clock never goes back in a fuzz run, and the timers moved it.
	var last record.VirtualTime
	timers := 0
	for i, e := range tr.Events {
		if e.Kind != record.Deliver {
			continue
		}
		require.GreaterOrEqual(t, e.At, last, "event %d", i)
		last = e.At
		if e.Timer != "" {
			timers++
		}
	}
	assert.Positive(t, last)
	assert.Positive(t, timers)

	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	back, _, err := record.Decode(&buf, record.NewCatalog(sys))
	require.NoError(t, err)
	r, err := replay.Run(ctx, sys, back)
	require.NoError(t, err)
	require.True(t, r.Reproduced)

	res, err := minimize.Run(ctx, sys, back, minimize.Config{Steps: 100_000, Workers: 1})
	require.NoError(t, err)
	min := res.Trace
	assert.Less(t, min.Header.Deliveries, back.Header.Deliveries)
	assert.Equal(t, "true", min.Header.OptionMap()[etcdraft.OptVirtualTime])
	r, err = replay.Run(ctx, sys, min)
	require.NoError(t, err)
	assert.True(t, r.Reproduced)
	assert.True(t, containsTime(min), "the minimized trace records the clock")
}

func containsTime(tr *record.Trace) bool {
	for _, e := range tr.Events {
		if e.At != 0 {
			return true
		}
	}
	return false
}

// TestVirtualTimeCutsElectionChurn: with virtual time a member campaigns
// only when it has not heard from a leader for an election timeout, so
// the same fuzz runs (seeds 1-5 of the walk) fire far fewer campaign
// timers per delivery (docs/fuzzing.md measures it with demi fuzz
// --census).
func TestVirtualTimeCutsElectionChurn(t *testing.T) {
	sys := etcdraft.System()
	rate := func(opts record.Options) float64 {
		var c record.Census
		_, err := record.SearchAll(context.Background(), sys, opts, record.SearchConfig{
			FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 5,
			Observe: func(r record.RunResult) { c.Add(r.Sim, r.Violation) },
		}, func(*record.Trace) bool { return true })
		require.NoError(t, err)
		for _, row := range c.Rows() {
			if row.Type == "Campaign" && row.Timer {
				return c.PerThousand(row)
			}
		}
		return 0
	}
	without, with := rate(nil), rate(record.Options{etcdraft.OptVirtualTime: "true"})
	t.Logf("campaign timers per 1,000 deliveries: %.1f without virtual time, %.1f with", without, with)
	assert.Greater(t, without, 2*with)
	assert.Positive(t, with)
}
