package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

func TestInsertableCopiesTheTracesExternalsAndTheInputsRestarts(t *testing.T) {
	type put struct{ K string }
	events := []record.Event{
		record.StartEvent("a"), record.StartEvent("b"), record.StartEvent("c"),
		{Kind: record.Send, To: "a", Msg: put{"x"}, Cause: -1},
		{Kind: record.Deliver, From: "a", To: "b", ID: 4},
		{Kind: record.Send, To: "a", Msg: put{"y"}, Cause: -1}, // the same shape: not again
		{Kind: record.Restart, Actor: "b", Cause: -1},
	}
	str := func(es []record.Event) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.String())
		}
		return out
	}
	// Without a restart in the input: copies of the trace's externals only.
	got := insertable([]record.Event{{Kind: record.Send, To: "a", Msg: put{"z"}}}, events)
	assert.Equal(t, str([]record.Event{events[3], events[6]}), str(got))
	// With restarts of c (twice): a restart of c too, after the copies, and
	// none of a, which the input never restarts.
	got = insertable([]record.Event{{Kind: record.Restart, Actor: "c"}, {Kind: record.Restart, Actor: "c"}}, events)
	assert.Equal(t, str([]record.Event{events[3], events[6], {Kind: record.Restart, Actor: "c"}}), str(got))
	// No external to copy and no restart in the input: nothing to insert.
	assert.Empty(t, insertable(nil, events[:3]))
}
