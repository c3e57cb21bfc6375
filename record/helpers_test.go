package record_test

import (
	"fmt"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// The test system: a handful of "probe" actors whose behaviour each test
// supplies as plain functions. Probes log every message they receive, so a
// test can see exactly what the runtime delivered.

// Ping is an ordinary message.
type Ping struct{ N int }

// Pong is a pointer message (registered as *Pong).
type Pong struct {
	N    int
	Note string
}

// Tick is a timer message.
type Tick struct{ K string }

// Boom makes a probe panic.
type Boom struct{ Why string }

type probe struct {
	id      record.ActorID
	b       *behaviour
	got     []string // "from:message", in delivery order (volatile)
	starts  int      // Start calls of this incarnation (volatile)
	scratch int
	boots   int    // free for behaviours to fill in Start
	last    string // free for behaviours to fill in Start
}

func (p *probe) Start(ctx *record.Context) {
	p.starts++
	if p.b.start != nil {
		p.b.start(p, ctx)
	}
}

func (p *probe) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	p.got = append(p.got, string(from)+":"+record.FormatMessage(msg))
	if m, ok := msg.(Boom); ok {
		panic(m.Why)
	}
	if p.b.recv != nil {
		p.b.recv(p, ctx, from, msg)
	}
}

func (p *probe) Snapshot() any { return map[string]any{"got": len(p.got)} }

type behaviour struct {
	start func(p *probe, ctx *record.Context)
	recv  func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message)
}

// probeSystem builds a system of n probes named a, b, c, ... with the given
// network semantics and behaviour.
func probeSystem(n int, sem record.Semantics, b *behaviour) *record.System {
	ids := make([]record.ActorID, n)
	for i := range ids {
		ids[i] = record.ActorID(rune('a' + i))
	}
	if b == nil {
		b = &behaviour{}
	}
	return &record.System{
		Name:     "probe",
		Doc:      "test actors that log what they receive",
		Options:  []record.OptionSpec{{Name: "flag", Default: "false", Usage: "a bug switch", Bug: true}, {Name: "size", Default: "3", Min: 1, Max: 9}},
		Members:  func(record.Options) []record.ActorID { return ids },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &probe{id: id, b: b} },
		Messages: []record.Message{Ping{}, &Pong{}, Tick{}, Boom{}},
		Network:  func(record.Options) record.Semantics { return sem },
	}
}

// newSim starts a Sim of sys with seed 1 and applies the given externals.
func newSim(t testing.TB, sys *record.System, evs ...record.Event) *record.Sim {
	t.Helper()
	s, err := record.NewSim(sys, nil, 1)
	require.NoError(t, err)
	apply(t, s, evs...)
	return s
}

func apply(t testing.TB, s *record.Sim, evs ...record.Event) {
	t.Helper()
	for _, e := range evs {
		require.NoError(t, s.Apply(e), "apply %s", e)
	}
}

func startAll(sys *record.System) []record.Event {
	var evs []record.Event
	for _, id := range sys.Members(nil) {
		evs = append(evs, record.StartEvent(id))
	}
	return evs
}

func probeOf(t testing.TB, s *record.Sim, id record.ActorID) *probe {
	t.Helper()
	a := s.View().Actor(id)
	require.NotNil(t, a, "actor %s is not running", id)
	return a.(*probe)
}

// pendingStrings renders pending messages as "from→to:msg" (timers as
// "timer key@to:msg") for comparisons.
func pendingStrings(ps []record.Pending) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		s := fmt.Sprintf("%s→%s:%s", p.From, p.To, record.FormatMessage(p.Msg))
		if p.Timer != "" {
			s = "timer " + p.Timer + "@" + string(p.To) + ":" + record.FormatMessage(p.Msg)
		}
		out = append(out, s)
	}
	return out
}

// deliverAll delivers enabled messages in send order until none is
// enabled or limit deliveries were made.
func deliverAll(t testing.TB, s *record.Sim, limit int) int {
	t.Helper()
	n := 0
	for ; n < limit; n++ {
		en := s.Enabled(nil)
		if len(en) == 0 {
			break
		}
		require.NoError(t, s.Deliver(en[0].ID))
	}
	return n
}

// forward is a behaviour that passes Ping{N} on to the next actor as
// Ping{N-1} until N reaches 0.
func forward(p *probe, ctx *record.Context, _ record.ActorID, msg record.Message) {
	if m, ok := msg.(Ping); ok && m.N > 0 {
		members := []record.ActorID{"a", "b", "c"}
		next := members[0]
		for i, id := range members {
			if id == p.id && i+1 < len(members) {
				next = members[i+1]
			}
		}
		ctx.Send(next, Ping{N: m.N - 1})
	}
}
