package dpor_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// Ping is the message x sends c in the ping-race system.
type Ping struct{}

// pinger is an actor of the ping-race system: the race system's a, b and
// c, and x, which sends c a Ping when it starts (a message of another type
// than the Vals c races on).
type pinger struct{ racer }

func (p *pinger) Start(ctx *record.Context) {
	if p.id == "x" {
		ctx.Send("c", Ping{})
		return
	}
	p.racer.Start(ctx)
}

// pingRaceSystem is raceSystem with x's Ping: c receives x's Ping, then a's
// Val{1} and b's Val{2}; it violates "first-is-2" when b's value arrives
// first.
func pingRaceSystem() *record.System {
	sys := raceSystem()
	sys.Name = "ping-race"
	sys.Members = func(record.Options) []record.ActorID { return []record.ActorID{"a", "b", "c", "x"} }
	sys.New = func(id record.ActorID, _ record.Options) record.Actor { return &pinger{racer{id: id}} }
	sys.Messages = []record.Message{Val{}, Ping{}}
	sys.Invariant = func(v record.View) *record.Violation {
		if c, ok := v.Actor("c").(*pinger); ok && c.first == 2 {
			return &record.Violation{Fingerprint: "first-is-2"}
		}
		return nil
	}
	return sys
}

// TestBroadNeverCrowdsOutTypedBacktracks: the guide delivers x's Ping to c,
// then a's Val{1}. At the Ping step the Vals are co-enabled dependent
// messages of another type (Broad backtracks); at the Val step b's Val{2}
// is the type-matching one that reproduces. Broad backtracks recorded
// first must not use up the room a type-matching one needs: with a budget
// of two schedules the check finds the violation with or without Broad,
// on the second schedule, through b's Val{2} delivered after the Ping.
func TestBroadNeverCrowdsOutTypedBacktracks(t *testing.T) {
	sys := pingRaceSystem()
	fp := fingerprint.New(nil)
	var plan dpor.Plan
	for _, a := range []record.ActorID{"c", "x", "a", "b"} {
		plan = append(plan, dpor.Step{Event: record.StartEvent(a)})
	}
	for _, e := range []record.Event{
		{Kind: record.Deliver, From: "x", To: "c", Msg: Ping{}},
		{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 1}},
	} {
		plan = append(plan, dpor.Step{Event: e, FP: fp.Of(e.Msg)})
	}
	for _, order := range []dpor.Order{dpor.Earliest, dpor.Deepest, dpor.Distance} {
		for _, broad := range []bool{false, true} {
			c, err := dpor.New(dpor.Config{System: sys, Target: "first-is-2", Mode: dpor.TFB, MaxSchedules: 2, Broad: broad, Order: order})
			require.NoError(t, err)
			res, err := c.Check(context.Background(), plan)
			require.NoError(t, err)
			require.NotNil(t, res.Trace, "order %s, broad %v", order, broad)
			require.Equal(t, 2, res.Schedules, "order %s, broad %v", order, broad)
			var got []string
			for _, e := range res.Trace.Events {
				if e.Kind == record.Deliver {
					got = append(got, string(e.From))
				}
			}
			require.Equal(t, []string{"x", "b"}, got, "order %s, broad %v: the Ping, then b's Val{2}", order, broad)
		}
	}
}

func TestParseOrder(t *testing.T) {
	for _, o := range []dpor.Order{dpor.Earliest, dpor.Deepest, dpor.Distance} {
		got, err := dpor.ParseOrder(o.String())
		require.NoError(t, err)
		require.Equal(t, o, got)
	}
	_, err := dpor.ParseOrder("random")
	require.EqualError(t, err, `dpor: unknown backtrack order "random" (want earliest, deepest or distance)`)
}
