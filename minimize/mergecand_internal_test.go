package minimize

import (
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCandidacyEditsLeaveARoundOutForTheReceiversNext(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		record.StartEvent("c"), // 2
		{Kind: record.Deliver, From: "a", To: "a", Timer: "e", Msg: advance{}, Cause: -1}, // 3: a's round
		record.SendEvent("a", mcmd{1}), // 4
		{Kind: record.Deliver, From: record.External, To: "a", Msg: mcmd{1}, Cause: 4},    // 5: handled: not a candidacy
		{Kind: record.Deliver, From: "b", To: "b", Timer: "e", Msg: advance{}, Cause: -1}, // 6: b's round, none handled
		{Kind: record.Deliver, From: "b", To: "c", Msg: mfwd{}, Cause: 6},                 // 7: its cone reaches c
		{Kind: record.Deliver, From: "a", To: "c", Msg: mfwd{}, Cause: 5},                 // 8: c's delivery in between
		{Kind: record.Deliver, From: "c", To: "a", Msg: mfwd{}, Cause: 8},                 // 9: its answer
		record.RestartEvent("b"), // 10: b's restart
		{Kind: record.Deliver, From: "c", To: "c", Timer: "e", Msg: advance{}, Cause: -1}, // 11: c's next round
		{Kind: record.Deliver, From: "c", To: "b", Msg: mfwd{}, Cause: 11},                // 12
	}
	assert.Equal(t, []coneReceiver{{actor: "c", first: 7}}, coneReceivers(ev, timerConeOf(ev, 6), "b"))
	assert.Equal(t, 11, nextClockTimer(ev, "c", 7))
	assert.Equal(t, -1, nextClockTimer(ev, "b", 12))

	edits := candidacyEdits(ev)
	require.Len(t, edits, 2, "b's round, merged into c's: quiet, then plain; c's round reaches b, which has no later round")
	bp := dpor.FromEvents(fingerprint.New(nil), ev)
	shape := func(p dpor.Plan) []string {
		var out []string
		for _, st := range p {
			s := string(st.Event.From) + ">" + string(st.Event.To) + string(st.Event.Actor)
			if st.Wildcard {
				s += "*"
			}
			out = append(out, s)
		}
		return out
	}
	assert.Equal(t, []string{">a", ">b", ">c", "a>a", "ext>a", "ext>a", "c>c*", "c>b*"}, shape(edits[0](nil, bp)),
		"quiet: b's timer and cone (6, 7), its restart (10), and c's delivery in between with its answer (8, 9) are left out")
	assert.Equal(t, []string{">a", ">b", ">c", "a>a", "ext>a", "ext>a", "a>c*", "c>a*", "c>c*", "c>b*"}, shape(edits[1](nil, bp)),
		"plain: only b's timer, cone and restart")
}
