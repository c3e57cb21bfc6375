package dpor_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/require"
)

// Val is the message of the race system.
type Val struct{ V int }

// racer sends its value to "c" when it starts; c keeps the first value it
// receives.
type racer struct {
	id    record.ActorID
	first int
}

func (r *racer) Start(ctx *record.Context) {
	switch r.id {
	case "a":
		ctx.Send("c", Val{V: 1})
	case "b":
		ctx.Send("c", Val{V: 2})
	}
}

func (r *racer) Receive(_ *record.Context, _ record.ActorID, msg record.Message) {
	if v, ok := msg.(Val); ok && r.first == 0 {
		r.first = v.V
	}
}

// raceSystem violates "first-is-2" when c hears from b before a.
func raceSystem() *record.System {
	return &record.System{
		Name:     "race",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "b", "c"} },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &racer{id: id} },
		Messages: []record.Message{Val{}},
		Invariant: func(v record.View) *record.Violation {
			if c, ok := v.Actor("c").(*racer); ok && c.first == 2 {
				return &record.Violation{Fingerprint: "first-is-2"}
			}
			return nil
		},
	}
}

func startAll() []record.Event {
	return []record.Event{record.StartEvent("c"), record.StartEvent("a"), record.StartEvent("b")}
}

func tokenTrace(t *testing.T) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{"restore-token": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 20})
	require.NoError(t, err)
	require.NotNil(t, tr)
	return sys, tr
}

func checker(t *testing.T, sys *record.System, tr *record.Trace, mode dpor.Mode, budget int) *dpor.Checker {
	t.Helper()
	c, err := dpor.New(dpor.Config{System: sys, Options: tr.Header.OptionMap(), Seed: tr.Header.Seed,
		Target: tr.Header.Violation.Fingerprint, Mode: mode, MaxSchedules: budget})
	require.NoError(t, err)
	return c
}

func TestSTSSchedReproducesTheOriginal(t *testing.T) {
	sys, tr := tokenTrace(t)
	c := checker(t, sys, tr, dpor.STS, 1)
	plan := dpor.FromEvents(fingerprint.New(nil), tr.Events)
	res, err := c.Check(context.Background(), plan)
	require.NoError(t, err)
	require.Equal(t, 1, res.Schedules)
	require.NotNil(t, res.Trace)
	require.Equal(t, tr.Header.Deliveries, res.Trace.Header.Deliveries)
	require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
}

func TestSTSSchedSkipsAbsentMessages(t *testing.T) {
	sys, tr := tokenTrace(t)
	fp := fingerprint.New(nil)
	full := dpor.FromEvents(fp, tr.Events)
	// Drop every other external event: some planned deliveries become
	// absent and are skipped; whatever reproduces must replay exactly.
	for _, drop := range []int{2, 3, 5} {
		var plan dpor.Plan
		n := 0
		for _, st := range full {
			if st.Event.Kind.IsExternal() && st.Event.Kind != record.Start {
				n++
				if n%drop == 0 {
					continue
				}
			}
			plan = append(plan, st)
		}
		res, err := checker(t, sys, tr, dpor.STS, 1).Check(context.Background(), plan)
		require.NoError(t, err)
		if res.Trace == nil {
			continue
		}
		rep, err := replay.Run(context.Background(), sys, res.Trace)
		require.NoError(t, err)
		require.True(t, rep.Reproduced, "a reproducing schedule is an exact trace")
		require.LessOrEqual(t, res.Trace.Header.Deliveries, tr.Header.Deliveries)
	}
}

func TestTFBExploresTypeMatchingBacktracks(t *testing.T) {
	sys := raceSystem()
	fp := fingerprint.New(nil)
	// The guide delivers a's Val{1} to c, which does not violate; the only
	// co-enabled dependent message of the same type is b's Val{2}.
	plan := dpor.Plan{}
	for _, e := range startAll() {
		plan = append(plan, dpor.Step{Event: e})
	}
	guide := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 1}, Cause: 1}
	plan = append(plan, dpor.Step{Event: guide, FP: fp.Of(guide.Msg)})
	for _, tc := range []struct {
		mode   dpor.Mode
		budget int
		found  bool
	}{
		{dpor.STS, 10, false},
		{dpor.TFB, 1, false},
		{dpor.TFB, 2, true},
	} {
		c, err := dpor.New(dpor.Config{System: sys, Target: "first-is-2", Mode: tc.mode, MaxSchedules: tc.budget})
		require.NoError(t, err)
		res, err := c.Check(context.Background(), plan)
		require.NoError(t, err)
		require.Equal(t, tc.found, res.Trace != nil, "mode %s budget %d", tc.mode, tc.budget)
		if res.Trace != nil {
			require.Equal(t, 2, res.Schedules)
			last := res.Trace.Events[len(res.Trace.Events)-1]
			require.Equal(t, record.ActorID("b"), last.From)
			rep, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			require.True(t, rep.Reproduced)
		}
	}
}

func TestTFBRunsNoScheduleTwice(t *testing.T) {
	sys := raceSystem()
	fp := fingerprint.New(nil)
	plan := dpor.Plan{}
	for _, e := range startAll() {
		plan = append(plan, dpor.Step{Event: e})
	}
	guide := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 1}}
	plan = append(plan, dpor.Step{Event: guide, FP: fp.Of(guide.Msg)})
	// Target a violation that never happens: TFB exhausts its backtracks
	// (one alternative) well before the budget and stops.
	c, err := dpor.New(dpor.Config{System: sys, Target: "never", Mode: dpor.TFB, MaxSchedules: 100})
	require.NoError(t, err)
	res, err := c.Check(context.Background(), plan)
	require.NoError(t, err)
	require.Nil(t, res.Trace)
	require.Equal(t, 2, res.Schedules)
}

func TestWildcardMatchesByType(t *testing.T) {
	sys := raceSystem()
	fp := fingerprint.New(nil)
	plan := dpor.Plan{}
	for _, e := range startAll() {
		plan = append(plan, dpor.Step{Event: e})
	}
	// A delivery from b whose recorded content no longer exists.
	stale := record.Event{Kind: record.Deliver, From: "b", To: "c", Msg: Val{V: 7}}
	for _, tc := range []struct {
		wild  bool
		found bool
	}{{false, false}, {true, true}} {
		p := append(append(dpor.Plan{}, plan...), dpor.Step{Event: stale, FP: fp.Of(stale.Msg), Wildcard: tc.wild})
		c, err := dpor.New(dpor.Config{System: sys, Target: "first-is-2", Mode: dpor.STS})
		require.NoError(t, err)
		res, err := c.Check(context.Background(), p)
		require.NoError(t, err)
		require.Equal(t, tc.found, res.Trace != nil, "wildcard %v", tc.wild)
	}
}

func TestNoDivergeAbortsNewTransitions(t *testing.T) {
	sys := raceSystem()
	fp := fingerprint.New(nil)
	// The original run: c hears b first.
	sim, err := record.NewSim(sys, nil, 0)
	require.NoError(t, err)
	for _, e := range startAll() {
		require.NoError(t, sim.Apply(e))
	}
	var fromB record.MsgID
	for _, p := range sim.InFlight() {
		if p.From == "b" {
			fromB = p.ID
		}
	}
	require.NoError(t, sim.Deliver(fromB))
	orig := sim.Trace(sim.Check())
	allowed, err := dpor.Observe(sys, nil, 0, orig.Events, orig.Header.Violation, nil)
	require.NoError(t, err)

	plan := dpor.FromEvents(fp, orig.Events)
	c, err := dpor.New(dpor.Config{System: sys, Target: "first-is-2", Mode: dpor.NoDiverge, Allowed: allowed})
	require.NoError(t, err)
	res, err := c.Check(context.Background(), plan)
	require.NoError(t, err)
	require.NotNil(t, res.Trace, "the original transitions are allowed")

	// A plan that delivers a's message first makes an unobserved transition.
	other := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 1}}
	p := append(dpor.FromEvents(fp, orig.Events[:3]), dpor.Step{Event: other, FP: fp.Of(other.Msg)})
	p = append(p, plan[3:]...)
	res, err = c.Check(context.Background(), p)
	require.NoError(t, err)
	require.Nil(t, res.Trace)

	// With a second schedule, NoDiverge explores the backtrack that
	// delivers b's message instead, a transition the original made.
	c.SetMaxSchedules(2)
	res, err = c.Check(context.Background(), p)
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	require.Equal(t, 2, res.Schedules)
	require.Equal(t, record.ActorID("b"), res.Trace.Events[len(res.Trace.Events)-1].From)
}

func TestConfigErrors(t *testing.T) {
	_, err := dpor.New(dpor.Config{})
	require.Error(t, err)
	_, err = dpor.New(dpor.Config{System: raceSystem()})
	require.Error(t, err)
	_, err = dpor.New(dpor.Config{System: raceSystem(), Target: "x", Mode: dpor.NoDiverge})
	require.Error(t, err)
}

func TestContextCancelled(t *testing.T) {
	sys, tr := tokenTrace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plan := dpor.FromEvents(fingerprint.New(nil), tr.Events)
	_, err := checker(t, sys, tr, dpor.TFB, 4).Check(ctx, plan)
	require.ErrorIs(t, err, context.Canceled)
}

func TestRerouteTakesAnotherSendersMessage(t *testing.T) {
	sys := raceSystem()
	fp := fingerprint.New(nil)
	plan := dpor.Plan{}
	for _, e := range startAll() {
		plan = append(plan, dpor.Step{Event: e})
	}
	// The step wants Val{2} from a, which a never sends; b sends it.
	want := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 2}}
	for _, reroute := range []bool{false, true} {
		p := append(append(dpor.Plan{}, plan...), dpor.Step{Event: want, FP: fp.Of(want.Msg), Reroute: reroute})
		tr := checkSTS(t, sys, "first-is-2", p)
		if !reroute {
			require.Nil(t, tr, "a's own Val{1} does not match without a wildcard")
			continue
		}
		require.NotNil(t, tr)
		last := tr.Events[len(tr.Events)-1]
		require.Equal(t, record.ActorID("b"), last.From, "rerouted to b's message to c")
		rep, err := replay.Run(context.Background(), sys, tr)
		require.NoError(t, err)
		require.True(t, rep.Reproduced)
	}
}
