package record

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fuzzer keeps the enabled set up to date message by message (sched)
// instead of scanning the pending list at every step. These tests run the
// same fuzz runs both ways, on a system with every kind of event (timers
// replaced and cancelled, kills, restarts, partitions, external messages
// to actors not started yet), and require the very same events. The
// scheduled runs also keep their event log compact (lazy), the others not.

type churn struct{ Hops, K int }

type churnActor struct{ peers []ActorID }

func (a *churnActor) Start(ctx *Context) { ctx.SetTimer("t", churn{K: 1}) }

func (a *churnActor) Receive(ctx *Context, _ ActorID, msg Message) {
	m := msg.(churn)
	r := ctx.Rand()
	switch {
	case m.K > 0 && r.IntN(4) == 0:
		ctx.CancelTimer("t")
	case m.K > 0:
		ctx.SetTimer("t", churn{K: m.K + 1})
	}
	for i := 0; i < 1+r.IntN(2) && m.Hops > 0; i++ {
		ctx.Send(a.peers[r.IntN(len(a.peers))], churn{Hops: m.Hops - 1})
	}
	if r.IntN(8) == 0 {
		ctx.Send(a.peers[r.IntN(len(a.peers))], churn{Hops: 6})
	}
}

func churnSystem(sem Semantics) *System {
	peers := []ActorID{"a", "b", "c", "d"}
	pick := func(r *rand.Rand) ActorID { return peers[r.IntN(len(peers))] }
	return &System{
		Name:     "churn",
		Members:  func(Options) []ActorID { return peers },
		New:      func(ActorID, Options) Actor { return &churnActor{peers: peers} },
		Messages: []Message{churn{}},
		Network:  func(Options) Semantics { return sem },
		Setup: func(Options) []Event {
			return []Event{SendEvent("d", churn{Hops: 9}), StartEvent("a"), StartEvent("b"), StartEvent("c"),
				SendEvent("a", churn{Hops: 9})}
		},
		Externals: []Generator{
			{Name: "restart", Weight: 1, Make: func(r *rand.Rand, _ View) (Event, bool) { return RestartEvent(pick(r)), true }},
			{Name: "kill-start", Weight: 2, Make: func(r *rand.Rand, v View) (Event, bool) {
				if id := pick(r); v.Running(id) {
					return KillEvent(id), true
				} else {
					return StartEvent(id), true
				}
			}},
			{Name: "partition", Weight: 2, Make: func(r *rand.Rand, v View) (Event, bool) {
				a, b := pick(r), pick(r)
				if v.Partitioned(a, b) {
					return HealEvent([]ActorID{a}, []ActorID{b}), true
				}
				return PartitionEvent([]ActorID{a}, []ActorID{b}), true
			}},
			{Name: "send", Weight: 3, Make: func(r *rand.Rand, _ View) (Event, bool) {
				return SendEvent(pick(r), churn{Hops: r.IntN(5)}), true
			}},
			{Name: "quiesce", Weight: 0.3, Make: func(*rand.Rand, View) (Event, bool) { return WaitQuiescenceEvent(0), true }},
		},
	}
}

func TestScheduledFuzzMatchesScan(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  FuzzConfig
	}{
		{"few externals", FuzzConfig{MaxSteps: 400, MaxExternals: 10}},
		{"many externals", FuzzConfig{MaxSteps: 400, MaxExternals: 200, ExternalProb: 0.2}},
		{"timers often", FuzzConfig{MaxSteps: 300, MaxExternals: 30, TimerProb: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planSims(churnSystem(FIFO))
			require.NoError(t, err)
			for seed := uint64(1); seed <= 40; seed++ {
				cfg := tc.cfg
				cfg.Seed = seed
				cfg = cfg.withDefaults()
				run := func(scheduled bool) []Event {
					f, err := newFuzzer(plan, nil, cfg, scheduled, chunks[entry]{})
					require.NoError(t, err)
					require.True(t, f.sim.sch.on)
					f.sim.sch.on = scheduled
					_, err = f.run(context.Background())
					require.NoError(t, err)
					return f.sim.Events()
				}
				want, got := run(false), run(true)
				require.Greater(t, len(want), 20)
				assert.Equal(t, want, got, "seed %d", seed)
			}
		})
	}
}

func TestIntNMatchesRand(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 8, 13, 64, 100, 1000, 1<<31 - 1, 1 << 40, 1<<62 + 3} {
		f := &fuzzer{pcg: rand.NewPCG(7, 9)}
		f.rng = rand.New(f.pcg)
		want := rand.New(rand.NewPCG(7, 9))
		for i := 0; i < 200; i++ {
			require.Equal(t, want.IntN(n), f.intN(n), "n=%d draw %d", n, i)
		}
	}
}
