package record_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timedSystem is two probes with virtual time when timed: on start, a
// arms timers "slow" (after 5) and "fast" (after 3), and b pings a; a
// answers the ping and re-arms "fast" (after 10).
func timedSystem(timed bool, maxDelay record.VirtualTime) *record.System {
	sys := probeSystem(2, record.FIFO, &behaviour{
		start: func(p *probe, ctx *record.Context) {
			if p.id == "a" {
				ctx.SetTimerAfter("slow", 5, Tick{K: "slow"})
				ctx.SetTimerAfter("fast", 3, Tick{K: "fast"})
			} else {
				ctx.Send("a", Ping{N: 1})
			}
		},
		recv: func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
			if m, ok := msg.(Ping); ok {
				ctx.SetTimerAfter("fast", 10, Tick{K: "fast"})
				ctx.Send(from, &Pong{N: m.N})
			}
		},
	})
	if timed {
		sys.Time = func(record.Options) *record.TimeModel { return &record.TimeModel{MaxDelay: maxDelay} }
	}
	sys.Setup = func(o record.Options) []record.Event { return startAll(sys) }
	return sys
}

// firings lists a trace's deliveries as "message@time".
func firings(tr *record.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		if e.Kind == record.Deliver {
			out = append(out, record.FormatMessage(e.Msg)+"@"+itoa(int(e.At)))
		}
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// With virtual time every fuzz run, whatever its seed and timer
// probability, fires the timers in deadline order and never before a
// message due earlier: the ping and pong (both sent at 0, so due at 2)
// come before any timer, the ping re-arms "fast" to 0+10, so "slow" fires
// first, at 5, then "fast" at 10.
func TestVirtualTimeOrdersTimers(t *testing.T) {
	sys := timedSystem(true, 2)
	for seed := uint64(1); seed <= 30; seed++ {
		tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: seed, TimerProb: 1, MaxExternals: -1})
		require.NoError(t, err)
		require.Equal(t, []string{"Ping{N:1}@0", "Pong{N:1 Note:}@0", "Tick{K:slow}@5", "Tick{K:fast}@10"}, firings(tr), "seed %d", seed)
	}
}

// A message may be overtaken by a timer due no later than the message:
// with MaxDelay 4 the ping (due at 4) may wait for "fast" (due at 3), and
// some seed does so; "slow" (due at 5) still waits for the pong.
func TestVirtualTimeBoundedDelay(t *testing.T) {
	sys := timedSystem(true, 4)
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: seed, TimerProb: 0.5, MaxExternals: -1})
		require.NoError(t, err)
		f := firings(tr)
		require.GreaterOrEqual(t, len(f), 4)
		seen[f[0]] = true
		assert.NotEqual(t, "Tick{K:slow}@5", f[0], "seed %d: slow passed a message due at 4", seed)
	}
	assert.Equal(t, map[string]bool{"Ping{N:1}@0": true, "Tick{K:fast}@3": true}, seen)
}

// Without a time model durations are ignored: SetTimerAfter is SetTimer,
// the run is what it always was (every delivery at time 0, so none
// recorded), and a timer may fire before a message.
func TestNoTimeModelIgnoresDurations(t *testing.T) {
	sys := timedSystem(false, 0)
	first := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: seed, TimerProb: 0.5, MaxExternals: -1})
		require.NoError(t, err)
		for _, e := range tr.Events {
			require.Zero(t, e.At)
		}
		first[firings(tr)[0]] = true
	}
	assert.True(t, first["Tick{K:slow}@0"], "a timer fired first in some run: %v", first)
}

// A trace with virtual time keeps each delivery's time through the file,
// and a replay (which follows the recorded order, whatever the clock)
// computes the same times.
func TestVirtualTimeTraceRoundTrip(t *testing.T) {
	sys := timedSystem(true, 2)
	tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 7, MaxExternals: -1})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	back, _, err := record.Decode(&buf, record.NewCatalog(sys))
	require.NoError(t, err)
	assert.Equal(t, firings(tr), firings(back))

	d, err := record.NewDriver(back.Setup(sys), back.Events, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	require.Nil(t, d.Divergence())
	assert.Equal(t, firings(tr), firings(d.Sim().Trace(nil)))
	assert.Equal(t, record.VirtualTime(10), d.Sim().Now())
}

// Replay follows a schedule that fires a timer before its deadline: the
// clock jumps to that deadline, and a later timer due earlier fires at
// the time the clock shows.
func TestVirtualTimeEarlyTimerReplays(t *testing.T) {
	sys := timedSystem(true, 2)
	s := newSim(t, sys, startAll(sys)...)
	fire := func(key string) {
		for _, p := range s.Enabled(nil) {
			if p.Timer == key {
				require.NoError(t, s.Deliver(p.ID))
				return
			}
		}
		t.Fatalf("timer %s is not pending", key)
	}
	fire("slow")
	fire("fast")
	assert.Equal(t, []string{"Tick{K:slow}@5", "Tick{K:fast}@5"}, firings(s.Trace(nil)))
	assert.Equal(t, &record.TimeModel{MaxDelay: 2}, s.TimeModel())
}
