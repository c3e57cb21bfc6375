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

// TestCarryEscapesRaft58aSeed10184 checks the carried restarts on the
// result main (147e7d2) gives for raft-58a unseen fuzz seed 10184: 22
// deliveries (E:13). raft-3 wins term 2 with raft-2's vote and cuts the
// term-1 leader raft-4's log; raft-2, which holds term 1 and was restarted
// just before, could run that round itself. No other move of the merge
// stage gets below 22.
func TestCarryEscapesRaft58aSeed10184(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58a-carry.trace")
	require.Equal(t, [2]int{22, 13}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	_, nt := firstMove(t, m, c, tr, append(append(sinkEdits(tr.Events), mergeEdits(tr.Events)...), candidacyEdits(tr.Events)...))
	require.Nil(t, nt, "no sink, merge or candidacy move helps")
	edits := carryEdits(tr.Events)
	k, nt := firstMove(t, m, c, tr, edits)
	require.Len(t, edits, 1, "raft-2 restarted just before raft-3's term-2 timeout; one command handled after it")
	require.NotNil(t, nt)
	assert.Equal(t, 0, k)
	assert.Equal(t, [2]int{19, 12}, [2]int{nt.Header.Deliveries, nt.Header.Externals}, "the best known size, from the move and its descent alone")
	assert.Equal(t, tr.Header.Violation.Fingerprint, nt.Header.Violation.Fingerprint)
	// The handover alone (raft-2 restarted before the round) is no help.
	_, alone := firstMove(t, m, c, tr, []edit{swapRound(23, []int{27}, "raft-3", "raft-2", fullRound)})
	assert.Nil(t, alone)
}

func TestCarryEditsHandARoundOverAndMoveTheRestartPastIt(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: -1}, // 2: b's last delivery before the restart
		record.RestartEvent("b"),       // 3
		record.SendEvent("a", mcmd{1}), // 4
		{Kind: record.Deliver, From: "a", To: "a", Timer: "e", Msg: advance{}, Cause: -1}, // 5: a's round
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: 5},                 // 6: its cone
		{Kind: record.Deliver, From: record.External, To: "a", Msg: mcmd{1}, Cause: 4},    // 7: handled by a
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: 7},                 // 8: its cone: the round's end
		{Kind: record.Deliver, From: "b", To: "b", Timer: "e", Msg: advance{}, Cause: 8},  // 9: a later round
	}
	assert.Equal(t, 3, restartBefore(ev, "b", 5))
	assert.Equal(t, -1, restartBefore(ev, "a", 5), "a has no restart")
	assert.Equal(t, -1, restartBefore(ev, "b", 9), "b has deliveries after its restart")
	assert.Equal(t, 8, roundEnd(ev, 5, []int{4}), "the later clock-advancing timer is not part of the round")
	assert.Equal(t, 6, roundEnd(ev, 5, nil))

	edits := carryEdits(ev)
	require.Len(t, edits, 1, "a's round handed to b with cmd 1; b's own round has no restart before it")
	var got []string
	for _, st := range edits[0](nil, dpor.FromEvents(fingerprint.New(nil), ev)) {
		s := string(st.Event.From) + ">" + string(st.Event.To) + string(st.Event.Actor)
		if st.Wildcard {
			s += "*"
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{">a", ">b", "a>b", "ext>b", "b>b*", "b>a*", "ext>b*", "b>a*", ">b", "b>b*"}, got,
		"the round and cmd 1 go to b (a full handover), and b's restart follows the round's last delivery")
}
