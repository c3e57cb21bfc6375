package record_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/demi-project/demi/record"
)

// Add is the example's only message: a number for the receiver to add to
// its total.
type Add struct{ N int }

// adder keeps a running total and passes a smaller Add to its peer.
type adder struct {
	peer  record.ActorID
	total int
}

func (a *adder) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	m := msg.(Add)
	a.total += m.N
	if m.N > 1 {
		ctx.Send(a.peer, Add{m.N - 1})
	}
}

// ExampleFuzz defines a two-actor system, fuzzes it until its invariant
// breaks and prints the failing schedule.
func ExampleFuzz() {
	sys := &record.System{
		Name:    "adders",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"x", "y"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			if id == "x" {
				return &adder{peer: "y"}
			}
			return &adder{peer: "x"}
		},
		Messages: []record.Message{Add{}},
		// The invariant: no actor's total goes above 5.
		Invariant: func(v record.View) *record.Violation {
			for _, id := range v.Members() {
				if a, ok := v.Actor(id).(*adder); ok && a.total > 5 {
					return &record.Violation{Fingerprint: "total>5@" + string(id), Detail: fmt.Sprintf("total %d", a.total)}
				}
			}
			return nil
		},
		// Every run starts both actors and sends each an Add{3}.
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("x"), record.StartEvent("y"),
				record.SendEvent("x", Add{3}), record.SendEvent("y", Add{3})}
		},
		// Fuzzing may also crash-restart an actor, losing its total.
		Externals: []record.Generator{{Name: "restart", Weight: 1,
			Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				return record.RestartEvent(v.Members()[r.IntN(2)]), true
			}}},
	}
	tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1, MaxExternals: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, e := range tr.Events {
		fmt.Println(i, e)
	}
	fmt.Println(tr.Header.Violation)
	// Output:
	// 0 start x
	// 1 start y
	// 2 send #1 ext→x Add{N:3}
	// 3 send #2 ext→y Add{N:3}
	// 4 deliver #2 ext→y Add{N:3}
	// 5 deliver #3 y→x Add{N:2}
	// 6 deliver #1 ext→x Add{N:3}
	// 7 deliver #4 x→y Add{N:1}
	// 8 deliver #5 x→y Add{N:2}
	// total>5@y: total 6
}

// ExampleSim drives a run by hand: apply external events, look at what is
// deliverable, deliver, check the invariant. This is what Fuzz does at
// random and what replay does from a trace.
func ExampleSim() {
	sys := &record.System{
		Name:    "adders",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"x", "y"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			return &adder{peer: map[record.ActorID]record.ActorID{"x": "y", "y": "x"}[id]}
		},
		Messages: []record.Message{Add{}},
	}
	sim, err := record.NewSim(sys, nil, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range []record.Event{record.StartEvent("x"), record.StartEvent("y"), record.SendEvent("x", Add{3})} {
		if err := sim.Apply(e); err != nil {
			fmt.Println(err)
			return
		}
	}
	for {
		enabled := sim.Enabled(nil)
		if len(enabled) == 0 {
			break
		}
		if err := sim.Deliver(enabled[0].ID); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(sim.NumDeliveries(), "deliveries,", sim.NumExternals(), "externals")
	fmt.Println("x:", sim.View().Actor("x").(*adder).total, "y:", sim.View().Actor("y").(*adder).total)
	// Output:
	// 3 deliveries, 3 externals
	// x: 4 y: 2
}

// ExampleDriver follows a recorded run's schedule, steps back one event,
// then asks "what if x had crashed and restarted there?": a restart loses
// x's total and the message in flight to it, so the last step of the
// schedule no longer applies.
func ExampleDriver() {
	sys := &record.System{
		Name:    "adders",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"x", "y"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			return &adder{peer: map[record.ActorID]record.ActorID{"x": "y", "y": "x"}[id]}
		},
		Messages: []record.Message{Add{}},
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("x"), record.StartEvent("y"), record.SendEvent("x", Add{3})}
		},
	}
	tr, err := record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 1, MaxExternals: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Run(ctx); err != nil {
		fmt.Println(err)
		return
	}
	total := func() int { return d.Sim().View().Actor("x").(*adder).total }
	fmt.Println("followed", d.Pos(), "of", len(tr.Events), "steps; x's total", total())
	if err := d.Back(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("one step back: x's total", total())
	if _, err := d.Apply(ctx, record.RestartEvent("x")); err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Run(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("restarted x, then the rest:", total(), "left the schedule:", d.Left())
	// Output:
	// followed 6 of 6 steps; x's total 4
	// one step back: x's total 3
	// restarted x, then the rest: 0 left the schedule: true
}
