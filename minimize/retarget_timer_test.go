package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The token system: a and b each arm an election timer when they start.
// When an actor's timer fires it asks the other for its vote (Ask), and an
// actor that gets the vote (Grant) leads. b holds a token from the start
// and hands it to the actor it granted its vote to when a client asks it
// to (Give). The violation: a leader holds the token. The cheap route is
// b's own timer (b asks, a grants, b leads with the token: 3 deliveries);
// the input takes a's (a asks, b grants, a leads, a client's Give makes b
// hand a the token: 5 deliveries and one more external event).
type (
	tokAsk   struct{}
	tokGrant struct{}
	tokGive  struct{}
	tokToken struct{}
	tokTimer struct{}
)

type tokenActor struct {
	id, other record.ActorID
	granted   record.ActorID
	leads     bool
	token     bool
}

func (a *tokenActor) Start(ctx *record.Context) {
	a.token = a.id == "b"
	ctx.SetTimer("elect", tokTimer{})
}

func (a *tokenActor) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch msg.(type) {
	case tokTimer:
		ctx.Send(a.other, tokAsk{})
	case tokAsk:
		if a.granted == "" {
			a.granted = from
			ctx.Send(from, tokGrant{})
		}
	case tokGrant:
		a.leads = true
	case tokGive:
		if a.token && a.granted != "" {
			a.token = false
			ctx.Send(a.granted, tokToken{})
		}
	case tokToken:
		a.token = true
	}
}

func tokenSystem() *record.System {
	return &record.System{
		Name:    "token",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			other := record.ActorID("a")
			if id == "a" {
				other = "b"
			}
			return &tokenActor{id: id, other: other}
		},
		Messages: []record.Message{tokAsk{}, tokGrant{}, tokGive{}, tokToken{}, tokTimer{}},
		Invariant: func(v record.View) *record.Violation {
			for _, id := range []record.ActorID{"a", "b"} {
				if x, ok := v.Actor(id).(*tokenActor); ok && x.leads && x.token {
					return &record.Violation{Fingerprint: "leader-holds-token"}
				}
			}
			return nil
		},
	}
}

// tokenInput runs a's route: the starts, a's timer, its Ask and b's Grant,
// a client's Give to b and the Token to a.
func tokenInput(t *testing.T, sys *record.System) *record.Trace {
	t.Helper()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	require.NoError(t, sim.Apply(record.StartEvent("a")))
	require.NoError(t, sim.Apply(record.StartEvent("b")))
	deliver := func(from, to record.ActorID, msg record.Message) { deliverPending(t, sim, from, to, msg) }
	deliver("a", "a", tokTimer{})
	deliver("a", "b", tokAsk{})
	deliver("b", "a", tokGrant{})
	require.NoError(t, sim.Apply(record.SendEvent("b", tokGive{})))
	deliver(record.External, "b", tokGive{})
	deliver("b", "a", tokToken{})
	v := sim.Check()
	require.NotNil(t, v)
	return sim.Trace(v)
}

// TestRetargetFiresATimerAtAnotherActor minimizes a's route. Every event
// of it is needed (without the Give a never gets the token, without a's
// election it never leads), and no reorder move changes which actor's
// timer fires. The retarget stage's timer move fires the timer at b and
// swaps a and b in its causal cone (b asks, a grants): 3 deliveries and
// the 2 starts, where the stages before it stop at 5 and 3.
func TestRetargetFiresATimerAtAnotherActor(t *testing.T) {
	sys := tokenSystem()
	in := tokenInput(t, sys)
	require.Equal(t, 5, in.Header.Deliveries)
	require.Equal(t, 3, in.Header.Externals)

	cfg := minimize.Config{Budget: time.Minute, Workers: 2}
	res, before, at := runAroundRetarget(t, sys, in, cfg)
	require.NotEmpty(t, at.Name, "the retarget stage ran")
	assert.Equal(t, [2]int{5, 3}, [2]int{before.Deliveries, before.Externals}, "what the stages before retarget leave")
	assert.Equal(t, [2]int{3, 2}, [2]int{at.Deliveries, at.Externals}, "after the retarget stage")
	assert.Equal(t, [2]int{3, 2}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	var got []string
	for _, e := range res.Trace.Events {
		got = append(got, e.Kind.String()+" "+string(e.From)+">"+string(e.To)+string(e.Actor))
	}
	assert.Equal(t, []string{"start >a", "start >b", "deliver b>b", "deliver b>a", "deliver a>b"}, got)

	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	cfg.Workers = 1
	other, err := minimize.Run(context.Background(), sys, in, cfg)
	require.NoError(t, err)
	assert.Equal(t, encode(t, res.Trace), encode(t, other.Trace), "-j 1")
}

// runAroundRetarget minimizes in with cfg and returns the result, the
// sizes before the retarget pass and after it.
func runAroundRetarget(t *testing.T, sys *record.System, in *record.Trace, cfg minimize.Config) (res *minimize.Result, before, at minimize.StageStats) {
	t.Helper()
	res, err := minimize.Run(context.Background(), sys, in, cfg)
	require.NoError(t, err)
	for i, s := range res.Stages {
		if s.Name == minimize.StageRetarget {
			before, at = res.Stages[i-1], s
		}
	}
	return res, before, at
}

// deliverPending delivers the pending message msg from one actor to
// another in sim, and fails the test when there is none.
func deliverPending(t *testing.T, sim *record.Sim, from, to record.ActorID, msg record.Message) {
	t.Helper()
	for _, p := range sim.Enabled(nil) {
		if p.From == from && p.To == to && record.SameMessage(p.Msg, msg) {
			require.NoError(t, sim.Deliver(p.ID))
			return
		}
	}
	t.Fatalf("no %T pending from %s to %s: %v", msg, from, to, sim.Enabled(nil))
}

// The outbox system: a starts with a note for b that it sends the next
// time it runs, whatever wakes it: its own tick timer or a client's Poke.
// The violation: b has the note. b's own tick does nothing.
type (
	boxNote struct{}
	boxPoke struct{}
	boxTick struct{}
)

type boxActor struct {
	id      record.ActorID
	pending bool
	got     bool
}

func (a *boxActor) Start(ctx *record.Context) {
	a.pending = a.id == "a"
	ctx.SetTimer("tick", boxTick{})
}

func (a *boxActor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	if _, ok := msg.(boxNote); ok {
		a.got = true
	}
	if a.pending {
		a.pending = false
		ctx.Send("b", boxNote{})
	}
	if _, ok := msg.(boxTick); ok {
		ctx.SetTimer("tick", boxTick{})
	}
}

func boxSystem() *record.System {
	return &record.System{
		Name:    "outbox",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			return &boxActor{id: id}
		},
		Messages: []record.Message{boxNote{}, boxPoke{}, boxTick{}},
		Invariant: func(v record.View) *record.Violation {
			if x, ok := v.Actor("b").(*boxActor); ok && x.got {
				return &record.Violation{Fingerprint: "b-has-note"}
			}
			return nil
		},
	}
}

// TestRetargetFiresATimerForAMessage minimizes a route where a client's
// Poke wakes a, which sends its note; b's tick fired first (the only timer
// firing of the input, and no part of the route). No removal takes the
// Poke away (a never runs again without it), but a's tick wakes it as
// well: the retarget pass fires it in the Poke's place, one external event
// fewer, as many deliveries.
func TestRetargetFiresATimerForAMessage(t *testing.T) {
	sys := boxSystem()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	require.NoError(t, sim.Apply(record.StartEvent("a")))
	require.NoError(t, sim.Apply(record.StartEvent("b")))
	deliverPending(t, sim, "b", "b", boxTick{})
	require.NoError(t, sim.Apply(record.SendEvent("a", boxPoke{})))
	deliverPending(t, sim, record.External, "a", boxPoke{})
	deliverPending(t, sim, "a", "b", boxNote{})
	v := sim.Check()
	require.NotNil(t, v)
	in := sim.Trace(v)

	cfg := minimize.Config{Budget: time.Minute, Workers: 2}
	res, before, at := runAroundRetarget(t, sys, in, cfg)
	require.NotEmpty(t, at.Name, "the retarget pass ran")
	assert.Equal(t, [2]int{2, 3}, [2]int{before.Deliveries, before.Externals}, "what the passes before retarget leave")
	assert.Equal(t, [2]int{2, 2}, [2]int{at.Deliveries, at.Externals}, "after the retarget pass")
	var got []string
	for _, e := range res.Trace.Events {
		got = append(got, e.Kind.String()+" "+string(e.From)+">"+string(e.To)+string(e.Actor)+" "+e.Timer)
	}
	assert.Equal(t, []string{"start >a ", "start >b ", "deliver a>a tick", "deliver a>b "}, got)

	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
