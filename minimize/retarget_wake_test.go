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
	res, err := minimize.Run(context.Background(), sys, in, cfg)
	require.NoError(t, err)
	var before, at minimize.StageStats
	for i, s := range res.Stages {
		if s.Name == minimize.StageRetarget {
			before, at = res.Stages[i-1], s
		}
	}
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
