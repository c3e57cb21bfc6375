package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// advance is a clock-advancing timer message (record.ClockAdvancer).
type advance struct{}

func (advance) AdvancesClock() bool { return true }

// mcmd is an external message type; mfwd another type.
type mcmd struct{ N int }
type mfwd struct{}

func TestMergeEditsMoveALaterRoundsExternalsIntoTheFirst(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), // 0
		record.StartEvent("b"), // 1
		{Kind: record.Deliver, From: "a", To: "a", Timer: "e", Msg: advance{}, Cause: -1}, // 2: a's first round
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: 2},                 // 3
		record.SendEvent("a", mcmd{1}),                                                    // 4
		{Kind: record.Deliver, From: record.External, To: "a", Msg: mcmd{1}, Cause: 4},    // 5: handled in round 1
		record.RestartEvent("a"),                                                          // 6: a loses its role
		record.SendEvent("a", mcmd{2}),                                                    // 7
		{Kind: record.Deliver, From: "a", To: "a", Timer: "e", Msg: advance{}, Cause: 2},  // 8: a's second round
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: 8},                 // 9: its cone
		{Kind: record.Deliver, From: "b", To: "a", Msg: mfwd{}, Cause: 9},                 // 10: its cone
		{Kind: record.Deliver, From: record.External, To: "a", Msg: mcmd{2}, Cause: 7},    // 11: handled in round 2
		{Kind: record.Deliver, From: "a", To: "b", Msg: mfwd{}, Cause: 11},                // 12: what a sends for it
		{Kind: record.Deliver, From: "b", To: "b", Timer: "e", Msg: advance{}, Cause: -1}, // 13: b's round, none handled
	}
	rounds := clockRounds(ev, "a")
	assert.Equal(t, []clockRound{{timer: 2, handled: []int{5}}, {timer: 8, handled: []int{11}}}, rounds)
	assert.Equal(t, map[int]bool{8: true, 9: true, 10: true}, timerConeOf(ev, 8), "the cone stops at other clock-advancing timers")

	edits := mergeEdits(ev)
	require.Len(t, edits, 2, "one pair of rounds with one external each: plain and drained")
	bp := dpor.FromEvents(fingerprint.New(nil), ev)
	idx := func(p dpor.Plan) []int {
		var out []int
		for _, st := range p {
			for k := range ev {
				if ev[k].Kind == st.Event.Kind && ev[k].Cause == st.Event.Cause && ev[k].From == st.Event.From &&
					ev[k].To == st.Event.To && ev[k].Actor == st.Event.Actor && ev[k].Msg == st.Event.Msg {
					out = append(out, k)
					break
				}
			}
		}
		return out
	}
	plain := edits[0](nil, bp)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 7, 11, 12, 13}, idx(plain),
		"the send and delivery of cmd 2 follow cmd 1; the restart, the second round's timer and its cone are left out")
	var wild []bool
	for _, st := range plain {
		wild = append(wild, st.Wildcard)
	}
	assert.Equal(t, []bool{false, false, false, false, false, false, false, false, true, true}, wild,
		"the deliveries after the new position of the moved events are wildcards")

	drained := edits[1](nil, bp)
	var flushes, steps []int
	for _, st := range drained {
		steps = append(steps, idx(dpor.Plan{st})...)
		if st.Flush {
			flushes = append(flushes, idx(dpor.Plan{st})...)
		}
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 7, 11, 12, 12, 12, 12, 12, 12, 13}, steps,
		"drained: the internal delivery is planned twice, each after 2 flush steps; the timer once")
	assert.Equal(t, []int{12, 12, 12, 12}, flushes)
	assert.Equal(t, record.ActorID("a"), bp[6].Event.Actor, "the best trace's plan is not changed")
}

func TestSinkEditsSendAForwardedExternalToTheChainsEnd(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"),         // 0
		record.StartEvent("b"),         // 1
		record.StartEvent("c"),         // 2
		record.SendEvent("a", mcmd{1}), // 3
		{Kind: record.Deliver, From: record.External, To: "a", Msg: mcmd{1}, Cause: 3},  // 4
		{Kind: record.Deliver, From: "c", To: "b", Msg: mfwd{}, Cause: -1},              // 5
		{Kind: record.Deliver, From: "a", To: "b", Msg: mcmd{1}, Cause: 4},              // 6: forwarded
		{Kind: record.Deliver, From: "a", To: "c", Msg: mfwd{}, Cause: 4},               // 7: not the same type
		{Kind: record.Deliver, From: "b", To: "c", Msg: mcmd{1}, Cause: 6},              // 8: forwarded again
		{Kind: record.Deliver, From: "c", To: "a", Msg: mfwd{}, Cause: 8},               // 9
		record.SendEvent("c", mcmd{2}),                                                  // 10: not forwarded
		{Kind: record.Deliver, From: record.External, To: "c", Msg: mcmd{2}, Cause: 10}, // 11
	}
	d0, chain := forwardChain(ev, 3)
	assert.Equal(t, 4, d0)
	assert.Equal(t, []int{6, 8}, chain)
	_, none := forwardChain(ev, 10)
	assert.Empty(t, none)

	edits := sinkEdits(ev)
	require.Len(t, edits, 1)
	p := edits[0](nil, dpor.FromEvents(fingerprint.New(nil), ev))
	var got []string
	for _, st := range p {
		s := string(st.Event.From) + ">" + string(st.Event.To)
		if st.Wildcard {
			s += "*"
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{">", ">", ">", "c>b*", "a>c*", "ext>c", "ext>c", "c>a*", "ext>c", "ext>c*"}, got,
		"cmd 1 is sent to c where its forwarded copy arrived; the chain (4, 6, 8) is left out; the deliveries after the first one are wildcards")
}

// TestMergeEscapesRaft58aSeed8749 checks the merge moves on the result
// main (999beb4) gives for raft-58a unseen fuzz seed 8749: 29 deliveries
// (E:13). raft-2 leads term 1 and takes one client command; it is
// crash-restarted, its term-1 append is rejected, it wins term 3 and
// takes two more commands; raft-4 cuts its log in term 4, and raft-2 wins
// term 5 and panics on a last command. No move of the retarget stage gets
// below 29. Merging the term-3 commands into term 1 (the restart and the
// re-election left out) reproduces only drained: the restart no longer
// drops raft-3's stale term-1 vote, which waits ahead of the last vote.
func TestMergeEscapesRaft58aSeed8749(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58a-merge.trace")
	require.Equal(t, [2]int{29, 13}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	edits := mergeMoves(tr.Events)
	require.Len(t, edits, 13, "no sink move; raft-2's three rounds give 3 pairs: terms 1 and 3 (two commands: both, then each alone), 1 and 5, 3 and 5, each plain and drained; then 2 candidacy merges and 1 carried restart")
	k, nt := firstMove(t, m, c, tr, edits)
	require.NotNil(t, nt)
	assert.Equal(t, 1, k, "the first improving move: both term-3 commands into term 1, drained (plain does not reproduce)")
	assert.Equal(t, [2]int{21, 12}, [2]int{nt.Header.Deliveries, nt.Header.Externals}, "after the move's descent; the stage's removal rounds take it to 19 (E:12)")
	assert.Equal(t, tr.Header.Violation.Fingerprint, nt.Header.Violation.Fingerprint)
	rep, err := replay.Run(context.Background(), m.sys, nt)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}

// TestSinkEscapesRaft58aSeed7139 checks the sink moves on the result main
// (999beb4) gives for raft-58a unseen fuzz seed 7139: 29 deliveries
// (E:15). A client command sent to raft-1 reaches the term-2 leader raft-4
// through raft-3, which keeps raft-3's term-1 leadership (raft-1 must
// know a leader) and three restarts.
func TestSinkEscapesRaft58aSeed7139(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58a-sink.trace")
	require.Equal(t, [2]int{29, 15}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	edits := sinkEdits(tr.Events)
	require.Len(t, edits, 1)
	k, nt := firstMove(t, m, c, tr, edits)
	require.NotNil(t, nt)
	assert.Equal(t, 0, k)
	assert.Equal(t, [2]int{19, 12}, [2]int{nt.Header.Deliveries, nt.Header.Externals}, "the best known size, from the move and its descent alone")
	assert.Equal(t, tr.Header.Violation.Fingerprint, nt.Header.Violation.Fingerprint)
	// The plain retarget of the same command (to raft-4, at its old
	// position) is no help: raft-4 then holds the entry before its empty
	// append to raft-3 goes out.
	_, plain := firstMove(t, m, c, tr, []edit{retarget(20, "raft-4")})
	assert.Nil(t, plain)
}

// TestMergeStageReachesTheBestKnownSize runs the merge stage on the four
// fixtures (merge, sink, candidacy merge, carried restart): the move that
// helps, its descent and the removal stages after it take each to 19
// deliveries (E:12), raft-58a's best known size, with
// the same trace and steps with 1 and 2 workers.
func TestMergeStageReachesTheBestKnownSize(t *testing.T) {
	for _, path := range []string{"testdata/raft-58a-merge.trace", "testdata/raft-58a-sink.trace", "testdata/raft-58a-candidacy.trace", "testdata/raft-58a-carry.trace"} {
		t.Run(path, func(t *testing.T) {
			tr, sys, err := record.ReadFile(path, record.NewCatalog(raft.System()))
			require.NoError(t, err)
			run := func(workers int) *minimizer {
				m, err := newStageMinimizer(sys, tr, tr, tr.Header.OptionMap(), workers)
				require.NoError(t, err)
				m.limit.Store(m.allowance(StageMerge))
				require.NoError(t, m.mergeStage(context.Background()))
				// The driver goes back to the removals after a success.
				require.NoError(t, m.thenRemovals(context.Background()))
				return m
			}
			two := run(2)
			best := two.snapshotBest()
			assert.Equal(t, [2]int{19, 12}, [2]int{best.Header.Deliveries, best.Header.Externals})
			rep, err := replay.Run(context.Background(), sys, best)
			require.NoError(t, err)
			assert.True(t, rep.Reproduced)
			one := run(1)
			assert.Equal(t, best.Events, one.snapshotBest().Events)
			assert.Equal(t, two.steps.Load(), one.steps.Load(), "the same steps")
		})
	}
}

// TestCandidacyMergeEscapesRaft58aSeed10936 checks the candidacy merges on
// the result main (147e7d2) gives for raft-58a unseen fuzz seed 10936: 28
// deliveries (E:13). raft-2's failed term-2 candidacy reaches raft-3,
// which then rejects raft-4's three term-1 appends; raft-2 is restarted,
// and raft-3 wins term 3 with its vote. No merge or sink move gets below
// 28. Left out with raft-2's restart and raft-3's three appends and
// rejects (quiet), raft-2's candidacy is merged into raft-3's.
func TestCandidacyMergeEscapesRaft58aSeed10936(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-58a-candidacy.trace")
	require.Equal(t, [2]int{28, 13}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	_, nt := firstMove(t, m, c, tr, append(sinkEdits(tr.Events), mergeEdits(tr.Events)...))
	require.Nil(t, nt, "no merge or sink move helps")
	edits := candidacyEdits(tr.Events)
	k, nt := firstMove(t, m, c, tr, edits)
	require.NotNil(t, nt)
	assert.Equal(t, 0, k, "raft-2's term-2 round merged into raft-3's, quiet")
	assert.Equal(t, [2]int{19, 12}, [2]int{nt.Header.Deliveries, nt.Header.Externals}, "the best known size, from the move and its descent alone")
	assert.Equal(t, tr.Header.Violation.Fingerprint, nt.Header.Violation.Fingerprint)
	rep, err := replay.Run(context.Background(), m.sys, nt)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
	// The plain form (raft-3's appends and rejects kept) is no help.
	_, plain := firstMove(t, m, c, tr, edits[1:2])
	assert.Nil(t, plain)
}
