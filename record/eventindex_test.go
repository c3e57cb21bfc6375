package record_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// stamper records, in its stable storage, the EventIndex of every handler
// call it gets.
type stamper struct{}

type stamp struct{}

func (stamper) Start(ctx *record.Context) { note(ctx) }

func (stamper) Receive(ctx *record.Context, _ record.ActorID, _ record.Message) { note(ctx) }

func note(ctx *record.Context) {
	v, _ := ctx.Storage().Get("seen")
	seen, _ := v.([]int)
	ctx.Storage().Put("seen", append(seen, ctx.EventIndex()))
}

// TestEventIndexIsTheEventsPlaceInTheLog: a handler's EventIndex is the
// index of the event it runs for, one clock shared by every actor.
func TestEventIndexIsTheEventsPlaceInTheLog(t *testing.T) {
	sys := &record.System{
		Name:     "stamps",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New:      func(record.ActorID, record.Options) record.Actor { return stamper{} },
		Messages: []record.Message{stamp{}},
	}
	events := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		{Kind: record.Send, ID: 1, From: record.External, To: "b", Msg: stamp{}, Cause: -1},   // 2
		{Kind: record.Deliver, ID: 1, From: record.External, To: "b", Msg: stamp{}, Cause: 2}, // 3
		{Kind: record.Send, ID: 2, From: record.External, To: "a", Msg: stamp{}, Cause: -1},   // 4
		{Kind: record.Deliver, ID: 2, From: record.External, To: "a", Msg: stamp{}, Cause: 4}, // 5
		record.RestartEvent("b"), // 6
	}
	d, err := record.NewDriver(record.Setup{System: sys}, events, record.Follow{})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	require.Nil(t, d.Divergence())
	seen := func(id record.ActorID) any { v, _ := d.Sim().View().Storage(id).Get("seen"); return v }
	assert.Equal(t, []int{0, 5}, seen("a"))
	assert.Equal(t, []int{1, 3, 6}, seen("b"))
}
