package minimize_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ladder system: b climbs one rung per Rung{N} from a, where N must be
// the next rung, and a sends the next rung on each tick of its timer; b
// reaching rung 5 is the violation. There is also a lift: b sends a Lift
// when it starts, and a's answer Up puts b on rung 5 at once (2
// deliveries instead of 10). The input climbs the ladder and leaves Lift
// pending. Every removal breaks the climb, the trace has no external event
// to move, insert or retarget (two starts), and no check delivers a
// message of a type the trace never delivers: the stages before near end
// at the input. The near stage's search delivers what is pending, Lift
// included, and finds the lift.
type (
	Rung struct{ N int }
	Lift struct{}
	Up   struct{}
	lTik struct{}
)

type ladderActor struct {
	id          record.ActorID
	ticks, rung int
}

func (a *ladderActor) Start(ctx *record.Context) {
	if a.id == "a" {
		ctx.SetTimer("tick", lTik{})
	} else {
		ctx.Send("a", Lift{})
	}
}

func (a *ladderActor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case lTik:
		a.ticks++
		ctx.Send("b", Rung{N: a.ticks})
		ctx.SetTimer("tick", lTik{})
	case Rung:
		if m.N == a.rung+1 {
			a.rung = m.N
		}
	case Lift:
		ctx.Send("b", Up{})
	case Up:
		a.rung = 5
	}
}

func ladderSystem() *record.System {
	return &record.System{
		Name:     "ladder",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &ladderActor{id: id} },
		Messages: []record.Message{Rung{}, Lift{}, Up{}, lTik{}},
		Invariant: func(v record.View) *record.Violation {
			if b, ok := v.Actor("b").(*ladderActor); ok && b.rung >= 5 {
				return &record.Violation{Fingerprint: "top"}
			}
			return nil
		},
	}
}

// ladderInput starts a, then b (whose Lift would be lost were a not
// running), and climbs: five ticks of a, each followed by its Rung.
func ladderInput(t *testing.T, sys *record.System) *record.Trace {
	t.Helper()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	require.NoError(t, sim.Apply(record.StartEvent("a")))
	require.NoError(t, sim.Apply(record.StartEvent("b")))
	deliver := func(to record.ActorID, msg record.Message) {
		t.Helper()
		for _, p := range sim.Enabled(nil) {
			if p.To == to && record.SameMessage(p.Msg, msg) {
				require.NoError(t, sim.Deliver(p.ID))
				return
			}
		}
		t.Fatalf("no %T pending for %s: %v", msg, to, sim.Enabled(nil))
	}
	for n := 1; n <= 5; n++ {
		deliver("a", lTik{})
		deliver("b", Rung{N: n})
	}
	v := sim.Check()
	require.NotNil(t, v)
	return sim.Trace(v)
}

// TestNearStageFindsARouteTheRemovalsDoNot minimizes the climb: the passes
// before near leave its 10 deliveries; near's calls find the lift, 2
// deliveries, with the same bytes whatever the number of workers.
func TestNearStageFindsARouteTheRemovalsDoNot(t *testing.T) {
	sys := ladderSystem()
	in := ladderInput(t, sys)
	require.Equal(t, [2]int{10, 2}, [2]int{in.Header.Deliveries, in.Header.Externals})

	res, err := minimize.Run(context.Background(), sys, in, minimize.Config{Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	var before, near minimize.StageStats
	for i, s := range res.Stages {
		if s.Name == minimize.StageNear {
			before, near = res.Stages[i-1], s
		}
	}
	require.Equal(t, minimize.StageNear, near.Name, "the near pass ran")
	assert.Equal(t, [2]int{10, 2}, [2]int{before.Deliveries, before.Externals}, "what the passes before near leave")
	assert.Less(t, near.Deliveries, 10, "near's first call finds a shorter route")
	assert.Equal(t, [2]int{2, 2}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	var kinds []string
	for _, e := range res.Trace.Events {
		k := e.Kind.String() + " " + string(e.To) + string(e.Actor)
		if e.Msg != nil {
			k += " " + record.TypeName(e.Msg)
		}
		kinds = append(kinds, k)
	}
	assert.Equal(t, []string{"start a", "start b", "deliver a Lift", "deliver b Up"}, kinds)

	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	sameWithWorkers(t, sys, in, res, 1)
}

// unforkableLadder is the ladder whose actors hold a function value: a
// copy of one would share it with the original, so its runs do not fork
// (record.Sim.ForkError) and the near stage does not run.
type unforkableLadder struct {
	ladderActor
	hook func()
}

func TestNearStageSkipsRunsThatDoNotFork(t *testing.T) {
	sys := ladderSystem()
	sys.New = func(id record.ActorID, _ record.Options) record.Actor {
		return &unforkableLadder{ladderActor: ladderActor{id: id}, hook: func() {}}
	}
	sys.Invariant = func(v record.View) *record.Violation {
		if b, ok := v.Actor("b").(*unforkableLadder); ok && b.rung >= 5 {
			return &record.Violation{Fingerprint: "top"}
		}
		return nil
	}
	in := ladderInput(t, sys)
	res, err := minimize.Run(context.Background(), sys, in, minimize.Config{Budget: time.Minute, Workers: 2})
	require.NoError(t, err)
	var names []string
	for _, s := range res.Stages {
		assert.NotEqual(t, minimize.StageNear, s.Name)
		names = append(names, s.Name)
	}
	// Without near, the late stages leave the ladder at 10 deliveries
	// (E:2); the resample stage's random runs, which need no fork, find
	// the lift after them.
	last := res.Stages[slices.Index(names, minimize.StageResample)-1]
	assert.Equal(t, [2]int{10, 2}, [2]int{last.Deliveries, last.Externals}, "the stages before resample do not find the lift")
	assert.Equal(t, [2]int{2, 2}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals}, "resample finds the lift")
}
