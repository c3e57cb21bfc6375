package record_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gossipSystem: three probes. A Ping{N} with N > 0 is passed on as
// Ping{N-1} to a peer drawn from ctx.Rand(); every probe has a "beat" timer
// that starts a new Ping{3} and re-arms itself. The fuzzer may restart, kill,
// start, partition, heal, send and wait. There is no invariant: tests add one.
func gossipSystem(sem record.Semantics) *record.System {
	peers := []record.ActorID{"a", "b", "c"}
	b := &behaviour{
		start: func(p *probe, ctx *record.Context) { ctx.SetTimer("beat", Tick{"beat"}) },
		recv: func(p *probe, ctx *record.Context, _ record.ActorID, msg record.Message) {
			switch m := msg.(type) {
			case Ping:
				if m.N > 0 {
					ctx.Send(peers[ctx.Rand().IntN(len(peers))], Ping{N: m.N - 1})
				}
			case Tick:
				ctx.Send(peers[ctx.Rand().IntN(len(peers))], Ping{N: 3})
				ctx.SetTimer("beat", Tick{"beat"})
			}
		},
	}
	sys := probeSystem(3, sem, b)
	sys.Name = "gossip"
	pick := func(r *rand.Rand) record.ActorID { return peers[r.IntN(len(peers))] }
	sys.Setup = func(record.Options) []record.Event {
		return append(startAll(sys), record.SendEvent("a", Ping{N: 5}))
	}
	sys.Externals = []record.Generator{
		{Name: "restart", Weight: 1, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.RestartEvent(pick(r)), true
		}},
		{Name: "kill-start", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			id := pick(r)
			if v.Running(id) {
				return record.KillEvent(id), true
			}
			return record.StartEvent(id), true
		}},
		{Name: "partition", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			a, b := pick(r), pick(r)
			if a == b {
				return record.Event{}, false
			}
			ab := []record.ActorID{a}
			if v.Partitioned(a, b) {
				return record.HealEvent(ab, []record.ActorID{b}), true
			}
			return record.PartitionEvent(ab, []record.ActorID{b}), true
		}},
		{Name: "send", Weight: 2, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.SendEvent(pick(r), &Pong{N: r.IntN(9), Note: "ext"}), true
		}},
		{Name: "quiesce", Weight: 0.5, Make: func(*rand.Rand, record.View) (record.Event, bool) {
			return record.WaitQuiescenceEvent(0), true
		}},
		{Name: "never", Weight: 0, Make: func(*rand.Rand, record.View) (record.Event, bool) {
			panic("a generator of weight 0 is never asked")
		}},
	}
	return sys
}

// gotAtLeast is an invariant broken once some running probe has received n
// messages.
func gotAtLeast(n int) func(record.View) *record.Violation {
	return func(v record.View) *record.Violation {
		for _, id := range v.Members() {
			if p, ok := v.Actor(id).(*probe); ok && len(p.got) >= n {
				return &record.Violation{Fingerprint: "busy-" + string(id), Detail: "too much mail"}
			}
		}
		return nil
	}
}

func fuzz(t testing.TB, sys *record.System, cfg record.FuzzConfig) *record.Trace {
	t.Helper()
	tr, err := record.Fuzz(context.Background(), sys, nil, cfg)
	require.NoError(t, err)
	return tr
}

func encode(t testing.TB, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

func TestFuzzSameSeedSameBytes(t *testing.T) {
	for _, sem := range []record.Semantics{record.FIFO, record.Unordered} {
		for _, seed := range []uint64{1, 2, 99} {
			sys := gossipSystem(sem)
			sys.Invariant = gotAtLeast(40)
			cfg := record.FuzzConfig{Seed: seed, MaxSteps: 400, MaxExternals: 20}
			one, two := encode(t, fuzz(t, sys, cfg)), encode(t, fuzz(t, sys, cfg))
			require.Equal(t, one, two, "%s seed %d", sem, seed)
			cfg.Seed++
			assert.NotEqual(t, one, encode(t, fuzz(t, sys, cfg)), "%s seed %d vs %d", sem, seed, cfg.Seed)
		}
	}
}

func TestFuzzRun(t *testing.T) {
	tests := []struct {
		name      string
		inv       func(record.View) *record.Violation
		cfg       record.FuzzConfig
		wantFP    string // "" for no violation
		wantSteps int    // exact deliveries when > 0
	}{
		{"no invariant runs to MaxSteps", nil, record.FuzzConfig{Seed: 1, MaxSteps: 150, MaxExternals: -1}, "", 150},
		{"stops at the first violation", gotAtLeast(10), record.FuzzConfig{Seed: 1, MaxSteps: 1000}, "busy-", 0},
		{"checks every N deliveries", gotAtLeast(10), record.FuzzConfig{Seed: 1, MaxSteps: 1000, CheckEvery: 7}, "busy-", 0},
		{"without externals", gotAtLeast(10), record.FuzzConfig{Seed: 4, MaxSteps: 1000, MaxExternals: -1}, "busy-", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := gossipSystem(record.FIFO)
			sys.Invariant = tc.inv
			tr := fuzz(t, sys, tc.cfg)
			h := tr.Header
			assert.Equal(t, "gossip", h.System)
			assert.Equal(t, tc.cfg.Seed, h.Seed)
			assert.Contains(t, h.Note, "fuzz seed=")
			if tc.wantSteps > 0 {
				assert.Equal(t, tc.wantSteps, h.Deliveries)
			}
			if tc.wantFP == "" {
				assert.Nil(t, h.Violation)
				return
			}
			require.NotNil(t, h.Violation)
			assert.Contains(t, h.Violation.Fingerprint, tc.wantFP)
			assert.Equal(t, len(tr.Events)-1, h.Violation.Event, "the run stops right after the violating event")
			last := tr.Events[len(tr.Events)-1]
			if last.Kind == record.Deliver && tc.cfg.CheckEvery > 1 {
				assert.Zero(t, h.Deliveries%tc.cfg.CheckEvery, "checked only every %d deliveries", tc.cfg.CheckEvery)
			}
			if tc.cfg.MaxExternals < 0 {
				assert.Equal(t, 4, h.Externals, "only the setup externals")
			}
			// Checking every delivery finds it no later than checking every 7.
			if tc.cfg.CheckEvery > 1 {
				c := tc.cfg
				c.CheckEvery = 1
				assert.LessOrEqual(t, fuzz(t, sys, c).Header.Deliveries, h.Deliveries)
			}
		})
	}
}

func TestFuzzRespectsLimits(t *testing.T) {
	sys := gossipSystem(record.Unordered)
	tr := fuzz(t, sys, record.FuzzConfig{Seed: 8, MaxSteps: 500, MaxExternals: 7, ExternalProb: 0.5})
	assert.LessOrEqual(t, tr.Header.Externals, 4+7, "setup plus at most MaxExternals")
	assert.LessOrEqual(t, tr.Header.Deliveries, 500)
	kinds := map[record.Kind]int{}
	for _, e := range tr.Events {
		kinds[e.Kind]++
	}
	assert.Positive(t, kinds[record.Deliver])
	assert.Equal(t, tr.Header.Deliveries, kinds[record.Deliver])
}

func TestFuzzTimerProbability(t *testing.T) {
	// With TimerProb near 1 nearly every delivery fires a timer when one is
	// enabled; with a tiny one, messages go first.
	timers := func(p float64) int {
		tr := fuzz(t, gossipSystem(record.FIFO), record.FuzzConfig{Seed: 5, MaxSteps: 300, MaxExternals: -1, TimerProb: p})
		n := 0
		for _, e := range tr.Events {
			if e.Timer != "" {
				n++
			}
		}
		return n
	}
	assert.Greater(t, timers(0.95), 2*timers(0.01))
}

func TestFuzzHandlerPanic(t *testing.T) {
	sys := gossipSystem(record.FIFO)
	inner := sys.New
	sys.New = func(id record.ActorID, o record.Options) record.Actor {
		p := inner(id, o).(*probe)
		if id == "b" {
			b := *p.b
			old := b.recv
			b.recv = func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
				if len(p.got) == 5 {
					panic("fifth message")
				}
				old(p, ctx, from, msg)
			}
			p.b = &b
		}
		return p
	}
	tr := fuzz(t, sys, record.FuzzConfig{Seed: 1, MaxSteps: 2000})
	require.NotNil(t, tr.Header.Violation)
	assert.Contains(t, tr.Header.Violation.Fingerprint, "panic: fifth message @ record_test.")
	assert.Equal(t, len(tr.Events)-1, tr.Header.Violation.Event)
}

func TestFuzzWaitMarkers(t *testing.T) {
	// Setup: start a, b, c (each arms a timer), send Ping{5} to a, a wait
	// marker, then kill a. The kill shows where the marker stopped.
	chain := &behaviour{
		start: func(p *probe, ctx *record.Context) { ctx.SetTimer("t", Tick{}) },
		recv:  forward,
	}
	tests := []struct {
		name   string
		marker record.Event
		// wantAfter lists the deliveries between the marker and the kill.
		wantAfter []string
	}{
		{"quiescence delivers every message but no timer", record.WaitQuiescenceEvent(0),
			[]string{"a:Ping{N:5}", "b:Ping{N:4}", "c:Ping{N:3}", "a:Ping{N:2}", "b:Ping{N:1}", "c:Ping{N:0}"}},
		{"limit bounds a wait", record.WaitQuiescenceEvent(2), []string{"a:Ping{N:5}", "b:Ping{N:4}"}},
		{"condition", record.WaitConditionEvent("c-got-two", 0),
			[]string{"a:Ping{N:5}", "b:Ping{N:4}", "c:Ping{N:3}", "a:Ping{N:2}", "b:Ping{N:1}", "c:Ping{N:0}"}},
		{"condition holding at once", record.WaitConditionEvent("always", 0), nil},
		{"condition with limit", record.WaitConditionEvent("c-got-two", 3), []string{"a:Ping{N:5}", "b:Ping{N:4}", "c:Ping{N:3}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := probeSystem(3, record.FIFO, chain)
			sys.Conditions = map[string]func(record.View) bool{
				"c-got-two": func(v record.View) bool { return len(v.Actor("c").(*probe).got) >= 2 },
				"always":    func(record.View) bool { return true },
			}
			sys.Setup = func(record.Options) []record.Event {
				return append(startAll(sys), record.SendEvent("a", Ping{5}), tc.marker, record.KillEvent("a"))
			}
			tr := fuzz(t, sys, record.FuzzConfig{Seed: 1, MaxSteps: 100, MaxExternals: -1})
			var after []string
			marker := -1
			for i, e := range tr.Events {
				if e.Kind == tc.marker.Kind {
					marker = i
					continue
				}
				if marker < 0 {
					continue
				}
				if e.Kind == record.Kill {
					break
				}
				require.Equal(t, record.Deliver, e.Kind)
				after = append(after, string(e.To)+":"+record.FormatMessage(e.Msg))
			}
			require.GreaterOrEqual(t, marker, 0, "the marker is recorded")
			assert.Equal(t, tc.marker, tr.Events[marker])
			assert.Equal(t, tc.wantAfter, after)
		})
	}
}

func TestFuzzErrors(t *testing.T) {
	t.Run("unknown condition", func(t *testing.T) {
		sys := probeSystem(1, record.FIFO, nil)
		sys.Setup = func(record.Options) []record.Event { return []record.Event{record.WaitConditionEvent("nope", 1)} }
		_, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1})
		assert.ErrorContains(t, err, `no condition "nope"`)
	})
	t.Run("bad setup event", func(t *testing.T) {
		sys := probeSystem(1, record.FIFO, nil)
		sys.Setup = func(record.Options) []record.Event { return []record.Event{record.StartEvent("zz")} }
		_, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1})
		assert.ErrorContains(t, err, `unknown actor "zz"`)
	})
	t.Run("bad option", func(t *testing.T) {
		_, err := record.Fuzz(context.Background(), probeSystem(1, record.FIFO, nil), record.Options{"x": "1"}, record.FuzzConfig{})
		assert.ErrorContains(t, err, `no option "x"`)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := record.Fuzz(ctx, gossipSystem(record.FIFO), nil, record.FuzzConfig{Seed: 1})
		assert.ErrorIs(t, err, context.Canceled)
		_, _, err = record.Search(ctx, gossipSystem(record.FIFO), nil, record.SearchConfig{Runs: 3})
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestSearch(t *testing.T) {
	sys := gossipSystem(record.FIFO)
	sys.Invariant = gotAtLeast(12)
	base := record.FuzzConfig{Seed: 10, MaxSteps: 400}
	tests := []struct {
		name     string
		runs     int
		min      int
		wantNil  bool
		wantRuns int
	}{
		{"first violation", 5, 0, false, 1},
		{"too short violations are skipped", 3, 100000, true, 3},
		{"at least one run", 0, 100000, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, runs, err := record.Search(context.Background(), sys, nil, record.SearchConfig{FuzzConfig: base, Runs: tc.runs, MinDeliveries: tc.min})
			require.NoError(t, err)
			assert.Equal(t, tc.wantRuns, runs)
			if tc.wantNil {
				assert.Nil(t, tr)
				return
			}
			require.NotNil(t, tr)
			require.NotNil(t, tr.Header.Violation)
			assert.GreaterOrEqual(t, tr.Header.Deliveries, tc.min)
		})
	}
	// MinDeliveries picks a later seed whose violation came late enough.
	first := fuzz(t, sys, base)
	require.NotNil(t, first.Header.Violation)
	tr, runs, err := record.Search(context.Background(), sys, nil, record.SearchConfig{FuzzConfig: base, Runs: 50, MinDeliveries: first.Header.Deliveries + 1})
	require.NoError(t, err)
	require.NotNil(t, tr, "one of 50 seeds breaks the invariant later than seed 10")
	assert.Greater(t, runs, 1)
	assert.Greater(t, tr.Header.Deliveries, first.Header.Deliveries)
	assert.Equal(t, base.Seed+uint64(runs-1), tr.Header.Seed)
	assert.Equal(t, encode(t, tr), encode(t, fuzz(t, sys, record.FuzzConfig{Seed: tr.Header.Seed, MaxSteps: 400})),
		"a search result is the fuzz run of its seed")
}
