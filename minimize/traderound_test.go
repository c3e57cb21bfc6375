package minimize_test

import (
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// The report system: every member but c arms a timer on start and, when
// it fires, reports its value to c; a and b start with value 0, d with 1,
// and d takes value 0 from a hint a sends it on start. The violation: c
// got a report of 0. The input takes d's route (a's hint, d's timer, d's
// report: 3 deliveries); the cheap route is a's or b's timer and report
// (2). No
// removal gets there (without the hint d reports 1), nor a handover,
// whose thin form leaves the report to c, a third actor, pending.
type (
	rHint   struct{}
	rTick   struct{}
	rReport struct{ V int }
)

type reportActor struct {
	v   int
	got bool
}

func (r *reportActor) Start(ctx *record.Context) {
	switch ctx.Self() {
	case "c":
		return
	case "d":
		r.v = 1
	case "a":
		ctx.Send("d", rHint{})
	}
	ctx.SetTimer("round", rTick{})
}

func (r *reportActor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case rHint:
		r.v = 0
	case rTick:
		ctx.Send("c", rReport{V: r.v})
	case rReport:
		r.got = r.got || m.V == 0
	}
}

func reportSystem() *record.System {
	members := []record.ActorID{"a", "b", "c", "d"}
	return &record.System{
		Name:     "report",
		Members:  func(record.Options) []record.ActorID { return members },
		New:      func(record.ActorID, record.Options) record.Actor { return &reportActor{} },
		Messages: []record.Message{rHint{}, rTick{}, rReport{}},
		Network:  func(record.Options) record.Semantics { return record.Unordered },
		Invariant: func(v record.View) *record.Violation {
			if r, ok := v.Actor("c").(*reportActor); ok && r.got {
				return &record.Violation{Fingerprint: "reported"}
			}
			return nil
		},
	}
}

// TestTradeRoundHandsTheRoundToAnotherActor minimizes the report input
// without the exhaustive searches (insert and shrink-search, which find
// the same route on so small a trace): trade-round fires a's timer in
// place of d's (a, the first other started actor, has value 0 too), a
// reports to c in d's place, and the descent drops a's hint. Without the pass the result stays at 3 deliveries.
func TestTradeRoundHandsTheRoundToAnotherActor(t *testing.T) {
	sys := reportSystem()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	for _, id := range []record.ActorID{"c", "d", "b", "a"} {
		require.NoError(t, sim.Apply(record.StartEvent(id)))
	}
	deliverPending(t, sim, "a", "d", rHint{})
	deliverPending(t, sim, "d", "d", rTick{})
	deliverPending(t, sim, "d", "c", rReport{V: 0})
	v := sim.Check()
	require.NotNil(t, v)
	in := sim.Trace(v)
	require.Equal(t, 3, in.Header.Deliveries)

	assertPassReaches(t, sys, in, minimize.StageTradeRound, 3, []string{"a>a rTick", "a>c rReport"})
}
