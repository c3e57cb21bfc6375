package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ping{N} with N > 0 makes its receiver send Ping{N-1} and then Note{N} to
// the other actor, so every link carries two messages in a row. The
// invariant breaks when an actor receives Ping{0}.
type Ping struct{ N int }

// Note is an idle message.
type Note struct{ N int }

type duo struct {
	id    record.ActorID
	other record.ActorID
	zero  bool
	// panicAt makes the handler panic on Ping{panicAt} (a "different build").
	panicAt int
}

func (d *duo) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	m, ok := msg.(Ping)
	if !ok {
		return
	}
	if d.panicAt > 0 && m.N == d.panicAt {
		panic("different build")
	}
	if m.N == 0 {
		d.zero = true
		return
	}
	ctx.Send(d.other, Ping{m.N - 1})
	ctx.Send(d.other, Note{m.N})
}

func duoSystem(panicAt int) *record.System {
	return &record.System{
		Name:    "duo",
		Options: []record.OptionSpec{{Name: "start", Default: "4", Min: 0, Max: 100}},
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			other := record.ActorID("b")
			if id == "b" {
				other = "a"
			}
			return &duo{id: id, other: other, panicAt: panicAt}
		},
		Messages: []record.Message{Ping{}, Note{}},
		Invariant: func(v record.View) *record.Violation {
			for _, id := range v.Members() {
				if d, ok := v.Actor(id).(*duo); ok && d.zero {
					return &record.Violation{Fingerprint: "zero@" + string(id), Detail: string(id) + " got Ping{0}"}
				}
			}
			return nil
		},
		Setup: func(o record.Options) []record.Event {
			return []record.Event{record.StartEvent("a"), record.StartEvent("b"), record.SendEvent("a", Ping{o.Int("start")})}
		},
	}
}

// duoTrace runs the duo system by hand, delivering the oldest enabled
// message first, until the invariant breaks:
//
//	0 start a, 1 start b, 2 send #1 ext→a Ping{4},
//	3 deliver #1, 4 deliver #2 a→b Ping{3}, 5 deliver #3 a→b Note{4}, ...
func duoTrace(t *testing.T) *record.Trace {
	t.Helper()
	sys := duoSystem(0)
	s, err := record.NewSim(sys, nil, 42)
	require.NoError(t, err)
	for _, e := range sys.Setup(s.Options()) {
		require.NoError(t, s.Apply(e))
	}
	for {
		if v := s.Check(); v != nil {
			return s.Trace(v)
		}
		en := s.Enabled(nil)
		require.NotEmpty(t, en)
		require.NoError(t, s.Deliver(en[0].ID))
	}
}

// roundTrip encodes and decodes a trace, as a trace read from a file.
func roundTrip(t *testing.T, tr *record.Trace, sys *record.System) *record.Trace {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	got, _, err := record.Decode(&buf, record.NewCatalog(sys))
	require.NoError(t, err)
	return got
}

func TestReproduces(t *testing.T) {
	tr := roundTrip(t, duoTrace(t), duoSystem(0))
	require.Equal(t, "zero@a", tr.Header.Violation.Fingerprint)
	res, err := replay.Run(context.Background(), duoSystem(0), tr)
	require.NoError(t, err)
	assert.True(t, res.Reproduced)
	assert.Nil(t, res.Divergence)
	assert.Equal(t, *tr.Header.Violation, *res.Violation)
	assert.Equal(t, len(tr.Events), res.Events)
	require.NotNil(t, res.Sim)
	assert.Equal(t, tr.Events, res.Sim.Events(), "the replayed run records the same events")
}

// tamper returns a copy of the trace's events changed by f.
func tamper(tr *record.Trace, f func(evs []record.Event) []record.Event) *record.Trace {
	out := *tr
	out.Events = f(slices.Clone(tr.Events))
	out.Recount()
	return &out
}

func TestDivergence(t *testing.T) {
	tr := duoTrace(t)
	// Events 4 and 5 deliver #2 Ping{3} and #3 Note{4}, both on a→b.
	require.Equal(t, "deliver #2 a→b Ping{N:3}", tr.Events[4].String())
	require.Equal(t, "deliver #3 a→b Note{N:4}", tr.Events[5].String())
	tests := []struct {
		name     string
		f        func(evs []record.Event) []record.Event
		event    int
		expected string
		got      string
	}{
		{"payload changed", func(evs []record.Event) []record.Event {
			evs[4].Msg = Ping{N: 9}
			return evs
		}, 4, "deliver #2 a→b Ping{N:9}", "pending deliver #2 a→b Ping{N:3}"},
		{"message type changed", func(evs []record.Event) []record.Event {
			evs[4].Msg = Note{N: 3}
			return evs
		}, 4, "deliver #2 a→b Note{N:3}", "pending deliver #2 a→b Ping{N:3}"},
		{"sender changed", func(evs []record.Event) []record.Event {
			evs[4].From = "b"
			return evs
		}, 4, "deliver #2 b→b Ping{N:3}", "pending deliver #2 a→b Ping{N:3}"},
		{"delivery dropped", func(evs []record.Event) []record.Event {
			return slices.Delete(evs, 4, 5)
		}, 4, "deliver #3 a→b Note{N:4}", "message #3 is queued behind #2 (FIFO a→b)"},
		{"deliveries on one FIFO link reordered", func(evs []record.Event) []record.Event {
			evs[4], evs[5] = evs[5], evs[4]
			return evs
		}, 4, "deliver #3 a→b Note{N:4}", "message #3 is queued behind #2 (FIFO a→b)"},
		{"message that was never sent", func(evs []record.Event) []record.Event {
			evs[6].ID = 77
			return evs
		}, 6, "deliver #77", "no message #77 pending"},
		{"delivery duplicated", func(evs []record.Event) []record.Event {
			return slices.Insert(evs, 5, evs[4])
		}, 5, "deliver #2 a→b Ping{N:3}", "no message #2 pending"},
		{"external send with another ID", func(evs []record.Event) []record.Event {
			evs[2].ID = 5
			return evs
		}, 2, "send #5 ext→a Ping{N:4}", "message ID #1"},
		{"external event the system rejects", func(evs []record.Event) []record.Event {
			evs[1] = record.StartEvent("zz")
			return evs
		}, 1, "start zz", `start: unknown actor "zz"`},
		{"receiver killed", func(evs []record.Event) []record.Event {
			return slices.Insert(evs, 4, record.KillEvent("b"))
		}, 5, "deliver #2 a→b Ping{N:3}", "no message #2 pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := tamper(tr, tc.f)
			res, err := replay.Run(context.Background(), duoSystem(0), bad)
			require.NoError(t, err)
			assert.False(t, res.Reproduced)
			require.NotNil(t, res.Divergence)
			d := res.Divergence
			assert.Equal(t, tc.event, d.Event, d.String())
			assert.Contains(t, d.Expected, tc.expected)
			assert.Contains(t, d.Got, tc.got)
			assert.Equal(t, tc.event, res.Events, "events executed before the divergence")
			assert.Contains(t, d.String(), fmt.Sprintf("diverged at event %d: expected ", tc.event))
		})
	}
}

func TestReplayOtherOutcomes(t *testing.T) {
	tr := duoTrace(t)
	t.Run("another violation", func(t *testing.T) {
		other := *tr
		other.Header.Violation = &record.Violation{Fingerprint: "something else"}
		res, err := replay.Run(context.Background(), duoSystem(0), &other)
		require.NoError(t, err)
		assert.False(t, res.Reproduced)
		assert.Nil(t, res.Divergence, "the schedule itself replays")
		require.NotNil(t, res.Violation)
		assert.Equal(t, "zero@a", res.Violation.Fingerprint, "the first violation seen is reported")
		assert.Equal(t, len(tr.Events), res.Events)
	})
	t.Run("no violation recorded", func(t *testing.T) {
		prefix := tamper(tr, func(evs []record.Event) []record.Event { return evs[:5] })
		prefix.Header.Violation = nil
		res, err := replay.Run(context.Background(), duoSystem(0), prefix)
		require.NoError(t, err)
		assert.False(t, res.Reproduced)
		assert.Nil(t, res.Violation)
		assert.Nil(t, res.Divergence)
		assert.Equal(t, 5, res.Events)
	})
	t.Run("a panic in a different build", func(t *testing.T) {
		res, err := replay.Run(context.Background(), duoSystem(2), tr)
		require.NoError(t, err)
		assert.False(t, res.Reproduced)
		require.NotNil(t, res.Divergence)
		assert.Contains(t, res.Divergence.Got, "panic: different build")
		assert.Equal(t, "the run to go on", res.Divergence.Expected)
		assert.Contains(t, res.Violation.Fingerprint, "panic: different build @ replay_test.(*duo).Receive")
	})
	t.Run("a recorded panic reproduces", func(t *testing.T) {
		sys := duoSystem(1)
		s, err := record.NewSim(sys, nil, 1)
		require.NoError(t, err)
		for _, e := range sys.Setup(s.Options()) {
			require.NoError(t, s.Apply(e))
		}
		for s.Check() == nil {
			require.NoError(t, s.Deliver(s.Enabled(nil)[0].ID))
		}
		tr := roundTrip(t, s.Trace(s.Check()), sys)
		res, err := replay.Run(context.Background(), sys, tr)
		require.NoError(t, err)
		assert.True(t, res.Reproduced)
		assert.Nil(t, res.Divergence)
	})
	t.Run("bad options", func(t *testing.T) {
		bad := *tr
		bad.Header.Options = []record.Option{{Name: "color", Value: "red"}}
		_, err := replay.Run(context.Background(), duoSystem(0), &bad)
		assert.ErrorContains(t, err, `no option "color"`)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := replay.Run(ctx, duoSystem(0), tr)
		assert.ErrorIs(t, err, context.Canceled)
		_, err = replay.Repeat(ctx, duoSystem(0), tr, 3)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestReplayFuzzedTraces(t *testing.T) {
	// Fuzzed traces of the duo system with random restarts, kills and
	// extra sends replay exactly, through the file format.
	sys := duoSystem(0)
	pick := func(r *rand.Rand) record.ActorID { return []record.ActorID{"a", "b"}[r.IntN(2)] }
	sys.Externals = []record.Generator{
		{Name: "restart", Weight: 1, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.RestartEvent(pick(r)), true
		}},
		{Name: "kill", Weight: 0.2, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.KillEvent(pick(r)), true
		}},
		{Name: "send", Weight: 2, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.SendEvent(pick(r), Ping{5 + r.IntN(20)}), true
		}},
	}
	reproduced := 0
	for seed := uint64(1); seed <= 30; seed++ {
		tr, err := record.Fuzz(context.Background(), sys, record.Options{"start": "30"}, record.FuzzConfig{Seed: seed, MaxSteps: 200, MaxExternals: 10})
		require.NoError(t, err)
		res, err := replay.Run(context.Background(), sys, roundTrip(t, tr, sys))
		require.NoError(t, err)
		require.Nil(t, res.Divergence, "seed %d", seed)
		require.Equal(t, tr.Header.Violation != nil, res.Reproduced, "seed %d", seed)
		if res.Reproduced {
			reproduced++
		}
	}
	assert.Greater(t, reproduced, 10)
}

func TestRepeatDeterministic(t *testing.T) {
	tr := duoTrace(t)
	results, err := replay.Repeat(context.Background(), duoSystem(0), tr, 20)
	require.NoError(t, err)
	require.Len(t, results, 20)
	for i, r := range results {
		assert.True(t, r.Reproduced, "run %d", i)
		assert.Nil(t, r.Sim, "Repeat drops the Sims")
	}
}

// Two deliberately nondeterministic systems: Repeat must catch both.

// counterActor stamps its messages with a counter shared by every run of
// the system (state that escapes the runtime, like a package-level variable).
type counterActor struct {
	shared *int
	got    int
}

func (c *counterActor) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	c.got++
	if from == record.External {
		*c.shared++
		ctx.Send("b", Ping{*c.shared})
	}
}

// mapActor broadcasts in map iteration order, which Go randomizes.
type mapActor struct {
	peers map[record.ActorID]bool
	got   int
}

func (m *mapActor) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	m.got++
	if from == record.External {
		for id := range m.peers {
			ctx.Send(id, Ping{1})
		}
	}
}

func nondetSystem(name string, newActor func(id record.ActorID, ids []record.ActorID) record.Actor) *record.System {
	ids := []record.ActorID{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	return &record.System{
		Name:     name,
		Members:  func(record.Options) []record.ActorID { return ids },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return newActor(id, ids) },
		Messages: []record.Message{Ping{}},
		Invariant: func(v record.View) *record.Violation {
			switch b := v.Actor("b").(type) {
			case *counterActor:
				if b.got > 0 {
					return &record.Violation{Fingerprint: "b-got-mail"}
				}
			case *mapActor:
				if b.got > 0 {
					return &record.Violation{Fingerprint: "b-got-mail"}
				}
			}
			return nil
		},
	}
}

func TestRepeatCatchesNondeterminism(t *testing.T) {
	shared := 0
	tests := []struct {
		name string
		sys  *record.System
	}{
		{"shared counter", nondetSystem("counter", func(record.ActorID, []record.ActorID) record.Actor {
			return &counterActor{shared: &shared}
		})},
		{"map iteration", nondetSystem("map", func(id record.ActorID, ids []record.ActorID) record.Actor {
			peers := map[record.ActorID]bool{}
			for _, p := range ids {
				if p != id {
					peers[p] = true
				}
			}
			return &mapActor{peers: peers}
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := record.NewSim(tc.sys, nil, 1)
			require.NoError(t, err)
			for _, id := range tc.sys.Members(nil) {
				require.NoError(t, s.Apply(record.StartEvent(id)))
			}
			require.NoError(t, s.Apply(record.SendEvent("a", Ping{})))
			for s.Check() == nil {
				require.NoError(t, s.Deliver(s.Enabled(nil)[0].ID))
			}
			tr := s.Trace(s.Check())
			results, err := replay.Repeat(context.Background(), tc.sys, tr, 20)
			require.NoError(t, err)
			diverged := 0
			for _, r := range results {
				if r.Divergence != nil {
					diverged++
					assert.False(t, r.Reproduced)
				}
			}
			assert.Positive(t, diverged, "nondeterminism shows up in 20 replays")
		})
	}
}

// Tally carries a map, which Go iterates in random order.
type Tally struct{ Votes map[string]int }

type tallier struct{ got int }

func (ta *tallier) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	ta.got++
	if from == record.External {
		m := msg.(Tally)
		votes := map[string]int{}
		for k, v := range m.Votes {
			votes[k] = v + 1
		}
		ctx.Send("b", Tally{Votes: votes})
	}
}

func TestReplayMessagesWithMaps(t *testing.T) {
	sys := &record.System{
		Name:     "tally",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New:      func(record.ActorID, record.Options) record.Actor { return &tallier{} },
		Messages: []record.Message{Tally{}},
		Invariant: func(v record.View) *record.Violation {
			if b, ok := v.Actor("b").(*tallier); ok && b.got > 0 {
				return &record.Violation{Fingerprint: "b-counted"}
			}
			return nil
		},
	}
	votes := map[string]int{}
	for i := 0; i < 16; i++ {
		votes[fmt.Sprint("n", i)] = i
	}
	s, err := record.NewSim(sys, nil, 1)
	require.NoError(t, err)
	for _, e := range []record.Event{record.StartEvent("a"), record.StartEvent("b"), record.SendEvent("a", Tally{Votes: votes})} {
		require.NoError(t, s.Apply(e))
	}
	for s.Check() == nil {
		require.NoError(t, s.Deliver(s.Enabled(nil)[0].ID))
	}
	tr := roundTrip(t, s.Trace(s.Check()), sys)
	results, err := replay.Repeat(context.Background(), sys, tr, 20)
	require.NoError(t, err)
	for i, r := range results {
		require.True(t, r.Reproduced, "run %d: %v", i, r.Divergence)
	}
}
