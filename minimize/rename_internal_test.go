package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type otherCmd struct{ Count int }

func sends(msgs ...record.Message) *record.Trace {
	tr := &record.Trace{}
	for _, m := range msgs {
		tr.Events = append(tr.Events, record.Event{Kind: record.Send, To: "a", Msg: m, Cause: -1})
	}
	return tr
}

// TestRenamesKeepValuesDistinct: a value is renamed in every message that
// holds it in the same field, to the smallest value the field does not
// hold or to half, never onto a value another message holds there; other
// types and fields are domains of their own; a Shrinkable message's values
// are renamed to the zero value only.
func TestRenamesKeepValuesDistinct(t *testing.T) {
	tr := sends(
		cmd{Count: 0},
		cmd{Count: 9},
		cmd{Count: 9, Name: "ab"},
		cmd{Count: 4},
		otherCmd{Count: 5},
		raft.Bootstrap{Members: []record.ActorID{"raft-2", "raft-1", "raft-2"}},
	)
	r := newRenamer(tr)
	assert.Empty(t, r.renamesAt(0), "0 and the empty string are as small as they get")
	assert.Equal(t, []map[int]record.Message{
		{1: cmd{Count: 1}, 2: cmd{Count: 1, Name: "ab"}}, // not to 0 (held by 0), not to 4 (held by 3)
	}, r.renamesAt(1), "both messages holding 9 change together")
	assert.Equal(t, []map[int]record.Message{
		{2: cmd{Count: 9, Name: "a"}}, // not to "" (held by 0 and 1)
	}, r.renamesAt(2))
	assert.Equal(t, []map[int]record.Message{
		{3: cmd{Count: 1}}, {3: cmd{Count: 2}},
	}, r.renamesAt(3))
	assert.Equal(t, []map[int]record.Message{
		{4: otherCmd{Count: 0}}, {4: otherCmd{Count: 2}},
	}, r.renamesAt(4), "another type's field is another domain")
	assert.Equal(t, []map[int]record.Message{
		{5: raft.Bootstrap{Members: []record.ActorID{"", "raft-1", ""}}},
		{5: raft.Bootstrap{Members: []record.ActorID{"raft-2", "", "raft-2"}}},
	}, r.renamesAt(5), "a Shrinkable message's values go to the zero value only")
}

// TestRenamesOfSliceElementsAndPointers: a slice's elements share one
// domain; a pointer's target is renamed in a copy.
func TestRenamesOfSliceElementsAndPointers(t *testing.T) {
	orig := &cmd{Args: []int{3, 5, 3}}
	r := newRenamer(sends(orig, cmd{Count: 2}))
	assert.Equal(t, []map[int]record.Message{
		{0: &cmd{Args: []int{0, 5, 0}}}, {0: &cmd{Args: []int{1, 5, 1}}},
		{0: &cmd{Args: []int{3, 0, 3}}}, {0: &cmd{Args: []int{3, 2, 3}}},
	}, r.renamesAt(0))
	assert.Equal(t, []int{3, 5, 3}, orig.Args, "the original is never modified")
	assert.Equal(t, []map[int]record.Message{{1: cmd{Count: 0}}, {1: cmd{Count: 1}}}, r.renamesAt(1))
}

// TestShrinkContentsKeepsCommandsDistinct runs shrink-contents on a
// two-leader raft-58b result (the shipped raft-58b.min.trace before the
// gather stage, examples/raft/testdata/raft-58b-two-leaders.trace) with its
// two client commands set to 5 and 7.
// Its route needs no particular values, so shrinking each to 0 on its own
// would reproduce too; renaming ends at 0 and 1 instead, so the entries
// of the two commands stay two different entries, which a one-leader route
// (examples/traces/raft-58b.reference.trace) needs.
func TestShrinkContentsKeepsCommandsDistinct(t *testing.T) {
	m := stageMinimizer(t, "../examples/raft/testdata/raft-58b-two-leaders.trace", 1)
	size := []int{m.best.Header.Deliveries, m.best.Header.Externals}
	next := 5
	for i, e := range m.best.Events {
		if _, ok := e.Msg.(raft.ClientCommand); ok && e.Kind == record.Send {
			c := raft.ClientCommand{Cmd: next}
			next += 2
			m.best.Events[i].Msg = c
			for j := range m.best.Events {
				if m.best.Events[j].Kind == record.Deliver && m.best.Events[j].Cause == i {
					m.best.Events[j].Msg = c
				}
			}
		}
	}
	require.Equal(t, 9, next, "the trace has two client commands")
	m.limit.Store(DefaultSteps)
	require.NoError(t, m.shrinkContents(context.Background()))
	var cmds []int
	for _, e := range m.best.Events {
		if c, ok := e.Msg.(raft.ClientCommand); ok && e.Kind == record.Send {
			cmds = append(cmds, c.Cmd)
		}
	}
	assert.Equal(t, []int{0, 1}, cmds)
	assert.Equal(t, size, []int{m.best.Header.Deliveries, m.best.Header.Externals})
}

// TestSameButContents: traces that differ in their messages' contents alone
// are alike for the driver (leftAlike), but not when an event's receiver
// or message type differs, nor for shrink-contents itself.
func TestSameButContents(t *testing.T) {
	a := sends(cmd{Count: 9}, otherCmd{Count: 5})
	assert.True(t, sameButContents(a, sends(cmd{Count: 1}, otherCmd{Count: 0})))
	assert.False(t, sameButContents(a, sends(cmd{Count: 9}, cmd{Count: 5})), "another message type")
	assert.False(t, sameButContents(a, sends(cmd{Count: 9})), "fewer events")
	b := sends(cmd{Count: 9}, otherCmd{Count: 5})
	b.Events[1].To = "b"
	assert.False(t, sameButContents(a, b), "another receiver")

	lighter := sends(cmd{Count: 1}, otherCmd{Count: 5})
	m := &minimizer{left: map[string]*record.Trace{StageDdminInternals: a, StageShrinkContents: a}}
	assert.True(t, m.leftAlike(StageDdminInternals, lighter))
	assert.False(t, m.leftAlike(StageShrinkContents, lighter), "shrink-contents runs again on other contents")
	assert.True(t, m.leftAlike(StageShrinkContents, a))
	assert.False(t, m.leftAlike(StageOneAtATime, a), "never called")
}
