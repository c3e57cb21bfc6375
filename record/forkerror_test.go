package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tally counts the messages it received. With bound set, it counts through
// a method value bound to itself, as a library that keeps `tick func()`
// fields does: a field-by-field copy would keep counting into the original.
type tally struct {
	n     int
	bound func()
}

func (t *tally) Start(*record.Context) {}

func (t *tally) Receive(_ *record.Context, _ record.ActorID, _ record.Message) {
	if t.bound != nil {
		t.bound()
		return
	}
	t.n++
}

func (t *tally) inc() { t.n++ }

type ping struct{}

// tallies is a one-actor system; bound chooses the method-value counter.
func tallies(bound bool) *record.System {
	return &record.System{
		Name:    "tally",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a"} },
		New: func(record.ActorID, record.Options) record.Actor {
			t := &tally{}
			if bound {
				t.bound = t.inc
			}
			return t
		},
		Messages: []record.Message{ping{}},
	}
}

// TestForkErrorNamesAnActorACopyWouldShare: a fork that copies an actor
// holding a function value says so (the copy's method value still counts
// into the original); one that copies a plain actor does not, and neither
// does a run that was never forked.
func TestForkErrorNamesAnActorACopyWouldShare(t *testing.T) {
	for _, bound := range []bool{false, true} {
		sim, err := record.Setup{System: tallies(bound)}.NewSim()
		require.NoError(t, err)
		require.NoError(t, sim.Apply(record.StartEvent("a")))
		for range 2 {
			require.NoError(t, sim.Apply(record.Event{Kind: record.Send, From: record.External, To: "a", Msg: ping{}, Cause: -1}))
		}
		f := sim.Fork()
		ps := f.Enabled(nil)
		require.NotEmpty(t, ps)
		require.NoError(t, f.Deliver(ps[0].ID))
		assert.NoError(t, sim.ForkError(), "the original copied nothing")
		if !bound {
			assert.NoError(t, f.ForkError())
			continue
		}
		require.Error(t, f.ForkError())
		assert.Equal(t, "actor a (*record_test.tally) holds a func() value, which a copy of it would share with the original, so its runs cannot be forked; implement record.DeepCopier for it", f.ForkError().Error())
		// What the error warns of: the fork's delivery counted into the
		// original's actor.
		assert.Equal(t, 1, sim.View().Actor("a").(*tally).n)
	}
}

// sharer copies itself badly: its copy shares the seen slice.
type sharer struct{ seen []int }

func (s *sharer) Receive(*record.Context, record.ActorID, record.Message) {
	s.seen = append(s.seen, 1)
}

func (s *sharer) DeepCopy() any { c := *s; return &c }

// TestCheckDeepCopiesNamesTheEventAndActor: a DeepCopy that shares memory
// fails at the first checked event where the shared memory exists.
func TestCheckDeepCopiesNamesTheEventAndActor(t *testing.T) {
	sys := &record.System{
		Name:     "sharer",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a"} },
		New:      func(record.ActorID, record.Options) record.Actor { return &sharer{} },
		Messages: []record.Message{ping{}},
	}
	tr := &record.Trace{Header: record.Header{System: "sharer"}, Events: []record.Event{
		record.StartEvent("a"),
		{Kind: record.Send, ID: 1, From: record.External, To: "a", Msg: ping{}, Cause: -1},
		{Kind: record.Deliver, ID: 1, From: record.External, To: "a", Msg: ping{}, Cause: 1},
	}}
	actors, stored, err := record.CheckDeepCopies(sys, tr, 1)
	require.Error(t, err)
	assert.Equal(t, 2, actors, "the two events before the delivery check a copy with nothing to share")
	assert.Equal(t, 0, stored)
	assert.Contains(t, err.Error(), "event 2, actor a: record: *record_test.sharer.DeepCopy shares memory with the value at ")
}
