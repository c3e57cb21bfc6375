package optimal_test

import (
	"context"
	"slices"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchFromTheStartIsSearch: with an empty prefix, SearchFrom is
// Search with Subsets.
func TestSearchFromTheStartIsSearch(t *testing.T) {
	sys, tr := failing(t, "panic-on-lap", 40)
	cfg := optimal.Config{Subsets: true, TotalBound: tr.Header.Deliveries + tr.Header.Externals}
	want, err := optimal.Search(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	got, err := optimal.SearchFrom(context.Background(), sys, tr, 0, cfg)
	require.NoError(t, err)
	require.NotNil(t, got.Trace)
	assert.Equal(t, [3]int{want.Deliveries, want.Externals, want.Searched}, [3]int{got.Deliveries, got.Externals, got.Searched})
	assert.Equal(t, want.Trace.Events, got.Trace.Events)
}

// TestSearchFromKeepsThePrefix searches after the first 15 events of a
// minimized Raft trace (raft-66, 13 deliveries and 7 externals: 20
// events): the result starts with those 12 events, replays, and its
// suffix is the cheapest, which the search proves by covering every cost
// below it.
func TestSearchFromKeepsThePrefix(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-66.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, 20, len(tr.Events))
	const cut = 15
	res, err := optimal.SearchFrom(context.Background(), sys, tr, cut, optimal.Config{Subsets: true, TotalBound: len(tr.Events) - cut})
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	assert.True(t, res.Exhausted)
	assert.Equal(t, tr.Events[:cut], res.Trace.Events[:cut])
	suffix := len(res.Trace.Events) - cut
	assert.Equal(t, suffix-1, res.Searched, "every cheaper suffix was covered")
	assert.Equal(t, len(tr.Events)-cut, suffix, "the shipped trace's suffix is already the cheapest after this prefix")
	r, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, r.Reproduced)

	_, err = optimal.SearchFrom(context.Background(), sys, tr, len(tr.Events)+1, optimal.Config{Subsets: true, TotalBound: 1})
	assert.EqualError(t, err, "optimal: cut 21 is outside the trace's 20 events")
}

// forkless holds a function value, so a copy of it would share state
// with the original: its runs do not fork.
type forkless struct{ f func() }

type forkTick struct{}

func (a *forkless) Start(ctx *record.Context)                               { ctx.SetTimer("tick", forkTick{}) }
func (a *forkless) Receive(*record.Context, record.ActorID, record.Message) {}

func TestForks(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-66.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.NoError(t, optimal.Forks(context.Background(), sys, tr))

	bad := &record.System{
		Name:      "forkless",
		Members:   func(record.Options) []record.ActorID { return []record.ActorID{"x"} },
		New:       func(record.ActorID, record.Options) record.Actor { return &forkless{f: func() {}} },
		Messages:  []record.Message{forkTick{}},
		Invariant: func(record.View) *record.Violation { return nil },
	}
	sim, err := record.NewSim(bad, record.Options{}, 0)
	require.NoError(t, err)
	require.NoError(t, sim.Apply(record.StartEvent("x")))
	require.NoError(t, sim.Deliver(sim.Enabled(nil)[0].ID))
	err = optimal.Forks(context.Background(), bad, sim.Trace(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot be forked")
}

// TestSearchFromInsertsAnEventTheTraceLacks takes the client command out
// of the shipped raft-66 trace (event 12 of 20, the entry the violation
// is about) and searches after the 12 events before it: without the
// command nothing of cost 8 or less reproduces the violation; with it to
// insert (Config.Insert), the search finds a suffix of 8 events that
// applies it, and with the trace's last step as Config.Last the same one
// in fewer steps. MaxSteps stops a search early.
func TestSearchFromInsertsAnEventTheTraceLacks(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-66.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	const cut = 12
	command := tr.Events[cut]
	require.Equal(t, record.Send, command.Kind)
	lacking := *tr
	lacking.Events = slices.Delete(slices.Clone(tr.Events), cut, cut+1)
	lacking.Recount()
	ctx := context.Background()

	res, err := optimal.SearchFrom(ctx, sys, &lacking, cut, optimal.Config{Subsets: true, TotalBound: 8})
	require.NoError(t, err)
	assert.Nil(t, res.Trace)
	assert.True(t, res.Exhausted)

	cfg := optimal.Config{Subsets: true, TotalBound: 8, Insert: []record.Event{command}}
	ins, err := optimal.SearchFrom(ctx, sys, &lacking, cut, cfg)
	require.NoError(t, err)
	require.NotNil(t, ins.Trace)
	assert.Equal(t, 20, len(ins.Trace.Events))
	assert.Equal(t, 7, ins.Searched, "every cheaper suffix was covered")
	assert.Equal(t, 1, countFunc(ins.Trace.Events, func(e record.Event) bool {
		return e.Kind == record.Send && record.SameMessage(e.Msg, command.Msg)
	}))
	r, err := replay.Run(ctx, sys, ins.Trace)
	require.NoError(t, err)
	assert.True(t, r.Reproduced)

	cfg.Last = &tr.Events[len(tr.Events)-1]
	last, err := optimal.SearchFrom(ctx, sys, &lacking, cut, cfg)
	require.NoError(t, err)
	require.NotNil(t, last.Trace)
	assert.Equal(t, 20, len(last.Trace.Events))
	assert.Less(t, last.Steps, ins.Steps)

	cfg.MaxSteps = 10
	early, err := optimal.SearchFrom(ctx, sys, &lacking, cut, cfg)
	require.NoError(t, err)
	assert.Nil(t, early.Trace)
	assert.False(t, early.Exhausted)

	_, err = optimal.SearchFrom(ctx, sys, &lacking, cut, optimal.Config{TotalBound: 8, Insert: []record.Event{command}})
	assert.EqualError(t, err, "optimal: inserted external events and a last step need Subsets (every step costs one)")
}

func countFunc(es []record.Event, f func(record.Event) bool) int {
	n := 0
	for _, e := range es {
		if f(e) {
			n++
		}
	}
	return n
}

// Ping and Note are the messages of lateSystem.
type (
	Ping struct{ N int }
	Note struct{ N int }
)

// relay forwards each Ping as a Note to "b"; "b" keeps the Notes it gets.
type relay struct {
	Pings int
	Notes []int
}

func (r *relay) Start(*record.Context) {}

func (r *relay) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Ping:
		r.Pings++
		ctx.Send("b", Note(m))
	case Note:
		r.Notes = append(r.Notes, m.N)
	}
}

// lateSystem is violated when "a" handled two Pings and "b" got the second
// one's Note alone: on a FIFO network, only when b started after a sent
// the first Note (a start drops what was sent to its actor before).
func lateSystem() *record.System {
	return &record.System{
		Name:     "late",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New:      func(record.ActorID, record.Options) record.Actor { return &relay{} },
		Messages: []record.Message{Ping{}, Note{}},
		Invariant: func(v record.View) *record.Violation {
			a, _ := v.Actor("a").(*relay)
			b, _ := v.Actor("b").(*relay)
			if a != nil && b != nil && a.Pings == 2 && slices.Equal(b.Notes, []int{2}) {
				return &record.Violation{Fingerprint: "lost-note"}
			}
			return nil
		},
	}
}

// TestSearchFromOrdersTheInsertedEvent: an inserted start does not commute
// with a delivery that sends to its actor, so the search must tell a
// delivery before the insertion from the same delivery after it. With b's
// start left out of the trace and given to insert, the only reproducer
// delivers the first Ping before it. The history filter used to key a
// delivery on the plan's external events alone, took the two orders for one
// and found nothing; where a small MaxStates emptied the filter midway, it
// found the reproducer and then failed to find it again ("a bound's
// reproducer was not found again", which ended a minimization).
func TestSearchFromOrdersTheInsertedEvent(t *testing.T) {
	sys, tr, lacking := lateCase(t)
	res, err := optimal.SearchFrom(context.Background(), sys, lacking, 1, optimal.Config{Subsets: true,
		TotalBound: len(tr.Events) - 1, Insert: []record.Event{record.StartEvent("b")}})
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	assert.Equal(t, len(tr.Events), len(res.Trace.Events), "the trace's own schedule is the cheapest")
	at := slices.IndexFunc(res.Trace.Events, func(e record.Event) bool { return e.Kind == record.Start && e.Actor == "b" })
	ping := slices.IndexFunc(res.Trace.Events, func(e record.Event) bool { return e.Kind == record.Deliver && e.Msg == Ping{N: 1} })
	assert.Less(t, ping, at, "the first Ping is delivered before b starts")
	r, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, r.Reproduced)
}

// lateCase is lateSystem's failing run tr (a started; Ping 1 delivered; b
// started; Ping 2 and the Notes delivered) and tr without b's start.
func lateCase(t *testing.T) (*record.System, *record.Trace, *record.Trace) {
	t.Helper()
	sys := lateSystem()
	sim, err := record.NewSim(sys, nil, 0)
	require.NoError(t, err)
	require.NoError(t, sim.Apply(record.StartEvent("a")))
	require.NoError(t, sim.Apply(record.SendEvent("a", Ping{N: 1})))
	require.NoError(t, sim.Deliver(sim.Enabled(nil)[0].ID))
	require.NoError(t, sim.Apply(record.StartEvent("b")))
	require.NoError(t, sim.Apply(record.SendEvent("a", Ping{N: 2})))
	for sim.Check() == nil {
		en := sim.Enabled(nil)
		require.NotEmpty(t, en)
		require.NoError(t, sim.Deliver(en[0].ID))
	}
	tr := sim.Trace(sim.Check())
	require.Equal(t, "lost-note", tr.Header.Violation.Fingerprint)
	at := slices.IndexFunc(tr.Events, func(e record.Event) bool { return e.Kind == record.Start && e.Actor == "b" })
	lacking := *tr
	lacking.Events = slices.Delete(slices.Clone(tr.Events), at, at+1)
	lacking.Recount()
	return sys, tr, &lacking
}
