package minimize

import (
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetargetEditsAddressExternalsToEveryOtherStartedActor(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"),                                           // 0
		record.StartEvent("b"),                                           // 1
		record.StartEvent("c"),                                           // 2
		record.SendEvent("a", nil),                                       // 3
		{Kind: record.Deliver, From: "b", To: "a", Cause: -1},            // 4
		{Kind: record.Deliver, From: record.External, To: "a", Cause: 3}, // 5
		record.RestartEvent("b"),                                         // 6
		{Kind: record.Deliver, From: "a", To: "c", Cause: -1},            // 7
	}
	edits := retargetEdits(ev)
	// The send to a goes to b, then c; the restart of b to a, then c.
	require.Len(t, edits, 4)
	bp := dpor.FromEvents(fingerprint.New(nil), ev)

	p := edits[1](nil, bp)
	require.Len(t, p, len(ev))
	assert.Equal(t, record.ActorID("c"), p[3].Event.To, "the send goes to c")
	assert.Equal(t, record.ActorID("c"), p[5].Event.To, "its delivery follows it")
	assert.Equal(t, record.ActorID("a"), p[4].Event.To, "another message's delivery keeps its receiver")
	assert.Equal(t, []bool{false, false, false, false, true, true, false, true},
		[]bool{p[0].Wildcard, p[1].Wildcard, p[2].Wildcard, p[3].Wildcard, p[4].Wildcard, p[5].Wildcard, p[6].Wildcard, p[7].Wildcard},
		"the deliveries after the send are wildcards")
	assert.Equal(t, record.ActorID("a"), bp[3].Event.To, "the best trace's plan is not changed")

	p = edits[2](nil, bp)
	assert.Equal(t, record.ActorID("a"), p[6].Event.Actor, "the restart is of a")
	assert.Equal(t, record.ActorID("a"), p[3].Event.To)
	assert.False(t, p[5].Wildcard, "deliveries before the moved event stay exact")
	assert.True(t, p[7].Wildcard)
}
