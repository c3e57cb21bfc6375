package minimize_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stale system: a receiver r must never take a Data message with N > 0
// as the first Data since it booted or was last cleared. r says Hello to s
// when it (re)starts; s arms its tick timer on a Hello and sends r Data{N}
// on every tick, N = 0, 1, 2, ...; c sends r a Clear on every tick of its
// own. Under FIFO, Data{0} always reaches r first, so the violation needs
// r's queue or memory reset: either a Clear after Data{0} (the route of the
// input below) or a crash-restart of r between s's first two ticks, which
// drops Data{0} (3 events cheaper, but the input never restarts r).
type (
	Hello    struct{}
	Data     struct{ N int }
	Clear    struct{}
	staleTik struct{}
)

type staleActor struct {
	id         record.ActorID
	ticks      int
	seen, late bool
}

func (a *staleActor) Start(ctx *record.Context) {
	switch a.id {
	case "r":
		ctx.Send("s", Hello{})
	case "c":
		ctx.SetTimer("tick", staleTik{})
	}
}

func (a *staleActor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Hello:
		ctx.SetTimer("tick", staleTik{})
	case staleTik:
		ctx.SetTimer("tick", staleTik{})
		if a.id == "s" {
			ctx.Send("r", Data{N: a.ticks})
			a.ticks++
		} else {
			ctx.Send("r", Clear{})
		}
	case Data:
		a.late = a.late || m.N > 0 && !a.seen
		a.seen = true
	case Clear:
		a.seen = false
	}
}

func staleMembers() []record.ActorID { return []record.ActorID{"r", "s", "c"} }

func staleSystem() *record.System {
	return &record.System{
		Name:     "stale",
		Members:  func(record.Options) []record.ActorID { return staleMembers() },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &staleActor{id: id} },
		Messages: []record.Message{Hello{}, Data{}, Clear{}, staleTik{}},
		// Its fault model: a crash-restart of any member (what inject and
		// add-event may add besides the trace's own external events).
		Externals: []record.Generator{{Name: "restart", Weight: 1,
			Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
				return record.Event{Kind: record.Restart, Actor: staleMembers()[r.IntN(3)]}, true
			},
			Each: func(record.View) []record.Event {
				var out []record.Event
				for _, a := range staleMembers() {
					out = append(out, record.Event{Kind: record.Restart, Actor: a})
				}
				return out
			}}},
		Invariant: func(v record.View) *record.Violation {
			if r, ok := v.Actor("r").(*staleActor); ok && r.late {
				return &record.Violation{Fingerprint: "late-first"}
			}
			return nil
		},
	}
}

// staleInput runs the Clear route: the starts, with restartC a restart
// of c (so the input has a crash-restart), r's Hello to s, s's first tick
// and Data{0}, c's tick and Clear, s's second tick and Data{1}.
func staleInput(t *testing.T, sys *record.System, restartC bool) *record.Trace {
	t.Helper()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	setup := []record.Event{record.StartEvent("s"), record.StartEvent("r"), record.StartEvent("c")}
	if restartC {
		setup = append(setup, record.Event{Kind: record.Restart, Actor: "c"})
	}
	for _, e := range setup {
		require.NoError(t, sim.Apply(e))
	}
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
	deliver("s", Hello{})
	deliver("s", staleTik{})
	deliver("r", Data{N: 0})
	deliver("c", staleTik{})
	deliver("r", Clear{})
	deliver("s", staleTik{})
	deliver("r", Data{N: 1})
	v := sim.Check()
	require.NotNil(t, v)
	return sim.Trace(v)
}

// TestMinimizeReachesARouteThatNeedsNewEvents minimizes the Clear route
// with a restart of c (7 deliveries, E:4). Every removal keeps the Clear
// (it is what resets r), and the cheaper route needs a restart of r (the
// input restarts only c; the system's restart generator offers r) and a
// second tick of s that the Clear route has without the Clear. The moves
// that add what the input lacks find it: 4 deliveries and 3 externals.
// With inject and add-event left out the result keeps the Clear route.
func TestMinimizeReachesARouteThatNeedsNewEvents(t *testing.T) {
	sys := staleSystem()
	in := staleInput(t, sys, true)
	require.Equal(t, [2]int{7, 4}, [2]int{in.Header.Deliveries, in.Header.Externals})
	run := func(workers int, skip ...string) *record.Trace {
		res, err := minimize.Run(context.Background(), sys, in, minimize.Config{Budget: time.Minute, Workers: workers, Skip: skip})
		require.NoError(t, err)
		return res.Trace
	}

	got := run(2)
	assert.Equal(t, [2]int{4, 3}, [2]int{got.Header.Deliveries, got.Header.Externals})
	assert.Equal(t, []string{"start s", "start r", "deliver s", "deliver s", "restart r", "deliver s", "deliver r"}, staleKinds(got))
	rep, err := replay.Run(context.Background(), sys, got)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
	assert.Equal(t, encode(t, got), encode(t, run(1)), "the same trace with one worker")

	kept := run(2, minimize.StageInject, minimize.StageAddEvent)
	assert.Equal(t, [2]int{7, 3}, [2]int{kept.Header.Deliveries, kept.Header.Externals})
}

func staleKinds(tr *record.Trace) []string {
	var kinds []string
	for _, e := range tr.Events {
		kinds = append(kinds, e.Kind.String()+" "+string(e.To)+string(e.Actor))
	}
	return kinds
}
