package record_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// relayTrace records a run of three forwarding probes: start a, b, c, then
// two external pings, delivered in send order until quiet.
func relayTrace(t *testing.T, sys *record.System) *record.Trace {
	t.Helper()
	s := newSim(t, sys, startAll(sys)...)
	apply(t, s, record.SendEvent("a", Ping{N: 3}), record.SendEvent("b", Ping{N: 2}))
	deliverAll(t, s, 100)
	return s.Trace(s.Check())
}

func forwardSystem(sem record.Semantics) *record.System {
	return probeSystem(3, sem, &behaviour{recv: forward})
}

// gotOf returns what every probe received, in member order.
func gotOf(t *testing.T, s *record.Sim) [][]string {
	t.Helper()
	var out [][]string
	for _, id := range s.Members() {
		if s.View().Running(id) {
			out = append(out, slices.Clone(probeOf(t, s, id).got))
		} else {
			out = append(out, nil)
		}
	}
	return out
}

func TestDriverFollowsATraceExactly(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	require.Len(t, tr.Events, 12, "3 starts, 2 sends, 7 deliveries")
	var steps []int
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{
		Observe: func(_ *record.Sim, o *record.Outcome) bool { steps = append(steps, o.Step); return true },
	})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	assert.Nil(t, d.Divergence())
	assert.Equal(t, len(tr.Events), d.Pos())
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, steps)
	assert.Equal(t, tr.Events, d.Sim().Events())
	assert.False(t, d.Left())
	_, err = d.Next(context.Background())
	assert.ErrorIs(t, err, record.ErrScheduleEnd)
}

func TestDriverDivergenceNamesTheFieldsThatDiffer(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	require.Equal(t, "deliver #1 ext→a Ping{N:3}", tr.Events[5].String())
	tests := []struct {
		name   string
		change func(e *record.Event)
		fields []record.FieldDiff
	}{
		{"sender", func(e *record.Event) { e.From = "c" },
			[]record.FieldDiff{{Field: "from", Expected: "c", Got: "ext"}}},
		{"receiver and contents", func(e *record.Event) { e.To = "b"; e.Msg = Ping{N: 4} },
			[]record.FieldDiff{{Field: "to", Expected: "b", Got: "a"}, {Field: "contents", Expected: "Ping{N:4}", Got: "Ping{N:3}"}}},
		{"timer key", func(e *record.Event) { e.Timer = "t\x01" },
			[]record.FieldDiff{{Field: "timer", Expected: `"t\x01"`, Got: `""`}}},
		{"type", func(e *record.Event) { e.Msg = &Pong{N: 3, Note: "\xff"} },
			[]record.FieldDiff{{Field: "type", Expected: "*Pong", Got: "Ping"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := slices.Clone(tr.Events)
			tc.change(&evs[5])
			d, err := record.NewDriver(tr.Setup(sys), evs, record.Follow{})
			require.NoError(t, err)
			require.NoError(t, d.Run(context.Background()))
			div := d.Divergence()
			require.NotNil(t, div)
			assert.Equal(t, 5, div.Event)
			assert.Equal(t, 5, d.Pos(), "the diverging step is not taken")
			assert.Equal(t, tc.fields, div.Fields)
			assert.Equal(t, "pending deliver #1 ext→a Ping{N:3}", div.Got)
			assert.Len(t, d.Sim().Events(), 5)
		})
	}
}

func TestDriverDivergenceIsEscaped(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	s := newSim(t, sys, startAll(sys)...)
	apply(t, s, record.SendEvent("a", &Pong{N: 1, Note: "ok"}))
	require.NoError(t, s.Deliver(s.Enabled(nil)[0].ID))
	tr := s.Trace(nil)
	tr.Events[4].Msg = &Pong{N: 1, Note: "bad\xff\x1b[2J"}
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	div := d.Divergence()
	require.NotNil(t, div)
	assert.Equal(t, `"deliver #1 ext→a Pong{N:1 Note:bad\xff\x1b[2J}"`, div.Expected)
	assert.Equal(t, []record.FieldDiff{{Field: "contents", Expected: `"Pong{N:1 Note:bad\xff\x1b[2J}"`, Got: "Pong{N:1 Note:ok}"}}, div.Fields)
	assert.NotContains(t, div.String(), "\x1b")
}

// violateAt returns sys with an invariant that fails once actor c has
// received n messages, and counts its calls.
func violateAt(sys *record.System, n int, calls *int) *record.System {
	out := *sys
	out.Invariant = func(v record.View) *record.Violation {
		*calls++
		if a, ok := v.Actor("c").(*probe); ok && len(a.got) >= n {
			return &record.Violation{Fingerprint: "c-heard", Detail: "c heard enough"}
		}
		return nil
	}
	return &out
}

func TestDriverStopsAtTheWantedViolation(t *testing.T) {
	calls := 0
	sys := violateAt(forwardSystem(record.FIFO), 2, &calls)
	tr := relayTrace(t, sys)
	require.NotNil(t, tr.Header.Violation)
	calls = 0
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: record.Want("c-heard")})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	require.True(t, d.Found())
	// c's second message is the delivery at event 9: 3 starts, 2 sends,
	// then #1 a, #2 b, #3 b, #4 c (first), #5 c (second).
	assert.Equal(t, 9, d.Violation().Event)
	assert.Equal(t, 10, d.Pos())
	assert.Equal(t, 10, calls, "checked after every event")

	other, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: record.Want("something else")})
	require.NoError(t, err)
	require.NoError(t, other.Run(context.Background()))
	assert.False(t, other.Found())
	assert.Equal(t, "c-heard", other.Violation().Fingerprint, "the first violation seen")
	assert.Equal(t, len(tr.Events), other.Pos(), "another violation does not stop the run")
}

func TestDriverCheckEvery(t *testing.T) {
	for _, tc := range []struct {
		every, calls int
	}{{0, 12}, {1, 12}, {5, 3}, {record.CheckAtEnd, 1}} {
		calls := 0
		sys := violateAt(forwardSystem(record.FIFO), 99, &calls)
		tr := relayTrace(t, forwardSystem(record.FIFO))
		d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{CheckEvery: tc.every})
		require.NoError(t, err)
		require.NoError(t, d.Run(context.Background()))
		assert.Equal(t, tc.calls, calls, "every %d", tc.every)
	}
}

func TestDriverCancellation(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	ctx, cancel := context.WithCancel(context.Background())
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{
		Observe: func(_ *record.Sim, o *record.Outcome) bool {
			if o.Step == 6 {
				cancel()
			}
			return true
		},
	})
	require.NoError(t, err)
	assert.ErrorIs(t, d.Run(ctx), context.Canceled)
	assert.Equal(t, 7, d.Pos(), "the step after the cancellation is not taken")
	assert.Len(t, d.Sim().Events(), 7)
}

func TestDriverObserverStops(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{
		Observe: func(_ *record.Sim, o *record.Outcome) bool { return o.Step < 3 },
	})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	assert.True(t, d.Stopped())
	assert.Equal(t, 4, d.Pos())
}

func TestDriverBack(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, d.Run(ctx))
	end := gotOf(t, d.Sim())
	for _, n := range []int{1, 4, 100} {
		require.NoError(t, d.Run(ctx))
		require.NoError(t, d.Back(ctx, n))
		m := max(len(tr.Events)-n, 0)
		assert.Equal(t, m, d.Pos())
		assert.Equal(t, tr.Events[:m], d.Sim().Events())
		// The same state as a fresh run of the first m events.
		fresh, err := record.NewDriver(tr.Setup(sys), tr.Events[:m], record.Follow{})
		require.NoError(t, err)
		require.NoError(t, fresh.Run(ctx))
		assert.Equal(t, gotOf(t, fresh.Sim()), gotOf(t, d.Sim()), "back %d", n)
	}
	require.NoError(t, d.Run(ctx))
	assert.Equal(t, end, gotOf(t, d.Sim()), "forward again to the same end")
}

func TestDriverBackForgetsLaterViolationsAndWhatIfs(t *testing.T) {
	calls := 0
	sys := violateAt(forwardSystem(record.FIFO), 2, &calls)
	tr := relayTrace(t, sys)
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: tr.Header.Violation})
	require.NoError(t, err)
	require.NoError(t, d.Run(ctx))
	require.True(t, d.Found())
	require.NoError(t, d.Back(ctx, 1))
	assert.False(t, d.Found())
	assert.Nil(t, d.Violation())

	d.Skip()
	assert.True(t, d.Left())
	require.NoError(t, d.Back(ctx, 1))
	assert.False(t, d.Left(), "back before the skip: on the schedule again")
	assert.Equal(t, 8, d.Pos())
}

func TestDriverWhatIfThenFollowTheRest(t *testing.T) {
	sys := forwardSystem(record.Unordered)
	tr := relayTrace(t, sys)
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{})
	require.NoError(t, err)
	for d.Pos() < 5 { // the starts and the two sends
		_, err := d.Next(ctx)
		require.NoError(t, err)
	}
	// What if b's ping (#2) is delivered before a's (#1)?
	o, err := d.Deliver(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, -1, o.Step)
	assert.Equal(t, record.MsgID(2), o.Delivered.ID)
	assert.True(t, d.Left())
	skipped := 0
	for {
		o, err := d.Next(ctx)
		if err != nil {
			require.ErrorIs(t, err, record.ErrScheduleEnd)
			break
		}
		require.Nil(t, o.Divergence)
		if o.Skipped {
			skipped++
			assert.Equal(t, 6, o.Step, "the step that delivered #2 finds nothing left to deliver")
		}
	}
	assert.Equal(t, 1, skipped)
	var got []string
	for _, e := range d.Sim().Events()[5:] {
		got = append(got, e.String())
	}
	assert.Equal(t, []string{"deliver #2 ext→b Ping{N:2}", "deliver #1 ext→a Ping{N:3}",
		"deliver #4 a→b Ping{N:2}", "deliver #3 b→c Ping{N:1}", "deliver #5 b→c Ping{N:1}",
		"deliver #6 c→a Ping{N:0}", "deliver #7 c→a Ping{N:0}"}, got, "the rest followed by content, under new IDs")
	assert.Equal(t, tr.Header.Deliveries, d.Sim().Deliveries())

	// The new run, saved, replays exactly.
	nt := d.Sim().Trace(nil)
	again, err := record.NewDriver(nt.Setup(sys), nt.Events, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, again.Run(ctx))
	assert.Nil(t, again.Divergence())
	assert.Equal(t, len(nt.Events), again.Pos())
}

func TestDriverDropAndApply(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	ctx := context.Background()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{})
	require.NoError(t, err)
	for d.Pos() < 5 {
		_, err := d.Next(ctx)
		require.NoError(t, err)
	}
	d.Drop(1) // a's external ping never arrives
	_, err = d.Apply(ctx, record.KillEvent("c"))
	require.NoError(t, err)
	require.NoError(t, d.Run(ctx))
	assert.Empty(t, probeOf(t, d.Sim(), "a").got, "a heard nothing: its ping was dropped")
	assert.False(t, d.Sim().View().Running("c"))
	_, pending := d.Sim().Pending(1)
	assert.True(t, pending, "a dropped message stays in the network")
	_, err = d.Deliver(ctx, 99)
	var np *record.NotPendingError
	assert.ErrorAs(t, err, &np)
}

func TestDriverLooseMatching(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	ctx := context.Background()
	// An extra external send first: every later message ID shifts by one.
	evs := slices.Insert(slices.Clone(tr.Events), 3, record.SendEvent("c", Ping{N: 0}))
	exact, err := record.NewDriver(tr.Setup(sys), evs, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, exact.Run(ctx))
	require.NotNil(t, exact.Divergence())
	assert.Equal(t, 3, exact.Divergence().Event, "the inserted send has no recorded ID")

	for _, m := range []record.Matcher{record.MatchContent, record.MatchType} {
		d, err := record.NewDriver(tr.Setup(sys), evs, record.Follow{Loose: m})
		require.NoError(t, err)
		require.NoError(t, d.Run(ctx))
		assert.Nil(t, d.Divergence())
		assert.Equal(t, len(evs), d.Pos())
		assert.Equal(t, tr.Header.Deliveries, d.Sim().Deliveries(), "every delivery step found its message")
	}

	// Contents changed: MatchType still follows, MatchContent skips.
	changed := slices.Clone(tr.Events)
	changed[5].Msg = Ping{N: 30}
	for m, want := range map[string]int{"content": tr.Header.Deliveries - 4, "type": tr.Header.Deliveries} {
		rule := record.MatchContent
		if m == "type" {
			rule = record.MatchType
		}
		d, err := record.NewDriver(tr.Setup(sys), changed, record.Follow{Loose: rule})
		require.NoError(t, err)
		require.NoError(t, d.Run(ctx))
		assert.Equal(t, want, d.Sim().Deliveries(), m)
	}
}

func TestViolationSame(t *testing.T) {
	a := &record.Violation{Fingerprint: "x", Detail: "one"}
	assert.True(t, a.Same(&record.Violation{Fingerprint: "x", Detail: "two"}))
	assert.False(t, a.Same(&record.Violation{Fingerprint: "y"}))
	assert.False(t, a.Same(nil))
	assert.False(t, (*record.Violation)(nil).Same(nil))
	assert.Nil(t, record.Want(""))
	assert.True(t, a.Same(record.Want("x")))
}

func TestSetup(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	tr := relayTrace(t, sys)
	su := tr.Setup(sys)
	assert.Equal(t, record.Setup{System: sys, Options: record.Options{"flag": "false", "size": "3"}, Seed: 1}, su)
	s, err := su.NewSim()
	require.NoError(t, err)
	assert.Equal(t, su, s.Setup())
}

func TestSimTraceIsTheCallers(t *testing.T) {
	sys := forwardSystem(record.FIFO)
	s := newSim(t, sys, startAll(sys)...)
	apply(t, s, record.SendEvent("a", Ping{N: 3}))
	tr := s.Trace(nil)
	require.Len(t, tr.Events, 4)
	tr.Events[0] = record.KillEvent("zz")
	assert.Equal(t, record.StartEvent("a").String(), s.Events()[0].String(), "changing the trace leaves the run alone")
	require.Equal(t, 1, deliverAll(t, s, 1))
	assert.Len(t, tr.Events, 4, "the run goes on without the trace")
	assert.Len(t, s.Events(), 5)
}
