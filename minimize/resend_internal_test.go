package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ping struct{ N int }

func TestResendRoundFiresAnotherTimerAndFlushesTheQueues(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		record.StartEvent("c"), // 2
		{Kind: record.Deliver, ID: 10, From: "a", To: "a", Timer: "t", Msg: ping{0}, Cause: -1}, // 3: a's timer
		{Kind: record.Deliver, ID: 11, From: "a", To: "c", Msg: ping{1}, Cause: 3},              // 4: a asks c
		{Kind: record.Deliver, ID: 12, From: "c", To: "a", Msg: ping{2}, Cause: 4},              // 5: c answers
		{Kind: record.Deliver, ID: 5, From: "c", To: "b", Msg: ping{3}, Cause: 1},               // 6: an old message, delivered late
	}
	st := timerState{
		running: []record.ActorID{"a", "b", "c"},
		pending: []record.Pending{
			{ID: 10, From: "a", To: "a", Timer: "t", Msg: ping{0}},
			{ID: 4, From: "b", To: "b", Timer: "h", Msg: ping{9}, Cause: 0}, // b has another timer
			{ID: 5, From: "c", To: "b", Msg: ping{3}, Cause: 1},             // queued ahead on c→b
			{ID: 6, From: "c", To: "b", Msg: ping{4}, Cause: 1},
			{ID: 7, From: "a", To: "b", Msg: ping{5}, Cause: 0}, // the head of a→b
		},
	}
	tm, ok := st.timerOf("b", "t")
	require.True(t, ok)
	require.NotNil(t, tm)
	assert.Equal(t, "h", tm.Timer, "b has no timer t: its timer h fires")
	same, ok := st.timerOf("a", "t")
	assert.True(t, ok)
	assert.Nil(t, same, "a has a timer t: the round's own timer fires")
	_, ok = st.timerOf("c", "t")
	assert.False(t, ok, "c has no timer")
	heads := st.heads("b")
	require.Len(t, heads, 2)
	assert.Equal(t, []record.MsgID{5, 7}, []record.MsgID{heads[0].ID, heads[1].ID})

	fp := fingerprint.New(nil)
	bp := dpor.FromEvents(fp, ev)
	p := resendRound(3, nil, "a", "b", tm, heads[1:], st.queued, true)(fp, bp)
	type step struct {
		from, to, timer string
		id              record.MsgID
		wild, flush     bool
	}
	var got []step
	for _, s := range p[3:] {
		got = append(got, step{string(s.Event.From), string(s.Event.To), s.Event.Timer, s.Event.ID, s.Wildcard, s.Flush})
	}
	fl := func(from, to string, id record.MsgID) []step {
		var out []step
		for range repeatFlush {
			out = append(out, step{from, to, "", id, true, true})
		}
		return append(out, step{from, to, "", id, true, false})
	}
	want := []step{
		{"a", "b", "", 7, true, false},  // catch-up: the head of a→b
		{"b", "b", "h", 4, true, false}, // b's timer h instead of a's t
	}
	want = append(want, fl("b", "c", 11)...) // b asks c (nothing queued on b→c)
	// c answers b: the two messages queued on c→b first, then the flush
	// steps and the answer.
	want = append(want, step{"c", "b", "", 5, true, false}, step{"c", "b", "", 6, true, false})
	want = append(want, fl("c", "b", 12)...)
	// The old message's late delivery (5) has moved up: left out.
	assert.Equal(t, want, got)
	assert.Equal(t, record.ActorID("a"), bp[3].Event.To, "the best trace's plan is not changed")

	// Not under FIFO: no queue is flushed.
	p = resendRound(3, nil, "a", "b", nil, nil, st.queued, false)(fp, bp)
	got = got[:0]
	for _, s := range p[3:] {
		got = append(got, step{string(s.Event.From), string(s.Event.To), s.Event.Timer, s.Event.ID, s.Wildcard, s.Flush})
	}
	want = []step{{"b", "b", "t", 10, true, false}}
	want = append(want, fl("b", "c", 11)...)
	want = append(want, fl("c", "b", 12)...)
	want = append(want, step{"c", "b", "", 5, true, false})
	assert.Equal(t, want, got)
}

// TestResendEscapesRaft58bSeed7154 checks the resend moves on the trace
// the pipeline ends at on raft-58b unseen fuzz seed 7154 without them:
// 35 deliveries (E:8), raft-3 re-elected in term 3 only to resend raft-2's
// entry to raft-4. The eighth move hands raft-3's term-3 timeout to raft-2,
// which leads term 2 and has no election timeout pending: its Heartbeat
// fires instead, after raft-4's four answers queued to raft-2 are flushed;
// its descent ends at 25 deliveries (E:8).
func TestResendEscapesRaft58bSeed7154(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58b-resend.trace")
	require.Equal(t, [2]int{35, 8}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	edits, steps, err := m.resendEdits(context.Background(), tr)
	require.NoError(t, err)
	assert.Len(t, edits, 12)
	assert.Equal(t, int64(43), steps, "the replay runs the whole trace")
	k, nt := firstMove(t, m, c, tr, edits)
	require.NotNil(t, nt)
	assert.Equal(t, 7, k, "raft-3's timer at event 37 to raft-2, its Heartbeat, no catch-up")
	assert.Equal(t, [2]int{25, 8}, [2]int{nt.Header.Deliveries, nt.Header.Externals})
	assert.Equal(t, tr.Header.Violation.Fingerprint, nt.Header.Violation.Fingerprint)
	rep, err := replay.Run(context.Background(), m.sys, nt)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}

// TestResendCatchesUpRaft58bSeed8609 checks the catch-up on the trace the
// pipeline ends at on raft-58b unseen fuzz seed 8609 without the resend
// moves: 34 deliveries (E:8). Handing raft-4's term-3 timeout (event 25)
// with the client command to raft-3 fails as it is: raft-3 would campaign
// in term 2, in which raft-1 voted for itself. With raft-1's pending
// term-2 RequestVote delivered to raft-3 first, raft-3 campaigns in term 3
// and wins with raft-1's vote: 23 deliveries (E:8) after the descent.
func TestResendCatchesUpRaft58bSeed8609(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58b-catch-up.trace")
	require.Equal(t, [2]int{34, 8}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	edits, _, err := m.resendEdits(context.Background(), tr)
	require.NoError(t, err)
	require.Len(t, edits, 17)
	k, nt := firstMove(t, m, c, tr, edits[12:14])
	require.NotNil(t, nt)
	assert.Equal(t, 1, k, "without the catch-up, the handover fails")
	assert.Equal(t, [2]int{23, 8}, [2]int{nt.Header.Deliveries, nt.Header.Externals})
	rep, err := replay.Run(context.Background(), m.sys, nt)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
