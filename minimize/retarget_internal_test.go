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

func TestSwapRoundSwapsTheActorsInTheTimersCone(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		record.StartEvent("c"), // 2
		{Kind: record.Deliver, From: "a", To: "a", Timer: "t", Cause: -1}, // 3: a's timer
		{Kind: record.Deliver, From: "a", To: "b", Cause: 3},              // 4: a asks b
		{Kind: record.Deliver, From: "a", To: "c", Cause: 3},              // 5: a asks c
		{Kind: record.Deliver, From: "c", To: "b", Cause: -1},             // 6: not in the cone
		{Kind: record.Deliver, From: "b", To: "a", Cause: 4},              // 7: b answers a
	}
	// The one timer firing goes to b, then c.
	edits := []edit{swapRound(3, nil, "a", "b", fullRound), swapRound(3, nil, "a", "c", fullRound)}
	bp := dpor.FromEvents(fingerprint.New(nil), ev)

	p := edits[0](nil, bp)
	require.Len(t, p, len(ev))
	var pairs []string
	for _, st := range p[3:] {
		pairs = append(pairs, string(st.Event.From)+">"+string(st.Event.To))
	}
	assert.Equal(t, []string{"b>b", "b>a", "b>c", "c>b", "a>b"}, pairs,
		"a and b trade places in the cone (3, 4, 5, 7), not elsewhere (6)")
	assert.Equal(t, []bool{false, false, false, false, true, true, true, true},
		[]bool{p[0].Wildcard, p[1].Wildcard, p[2].Wildcard, p[3].Wildcard, p[4].Wildcard, p[5].Wildcard, p[6].Wildcard, p[7].Wildcard},
		"the deliveries after the timer are wildcards")
	assert.Equal(t, record.ActorID("a"), bp[3].Event.To, "the best trace's plan is not changed")

	p = edits[1](nil, bp)
	assert.Equal(t, record.ActorID("c"), p[3].Event.To)
	assert.Equal(t, []record.ActorID{"c", "b"}, []record.ActorID{p[4].Event.From, p[4].Event.To})
	assert.Equal(t, []record.ActorID{"c", "a"}, []record.ActorID{p[5].Event.From, p[5].Event.To})
	assert.Equal(t, []record.ActorID{"c", "b"}, []record.ActorID{p[6].Event.From, p[6].Event.To}, "not in the cone")
}
