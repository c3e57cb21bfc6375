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
