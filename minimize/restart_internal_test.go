package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRestartEditsRestartEveryStartedActorAtEveryPositionAfterItsStart(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"),                                // 0
		{Kind: record.Deliver, From: "a", To: "a", Cause: -1}, // 1
		record.StartEvent("b"),                                // 2
		{Kind: record.Deliver, From: "a", To: "b", Cause: -1}, // 3
	}
	edits := restartEdits(ev)
	// a at 1, 2, 3, 4; then b at 3, 4.
	require.Len(t, edits, 6)
	bp := dpor.FromEvents(fingerprint.New(nil), ev)
	var got []string
	for _, e := range edits {
		p := e(nil, bp)
		require.Len(t, p, len(ev)+1)
		for k, st := range p {
			if st.Event.Kind == record.Restart {
				got = append(got, string(st.Event.Actor)+"@"+string(rune('0'+k)))
				for _, after := range p[k+1:] {
					assert.Equal(t, after.Event.Kind == record.Deliver, after.Wildcard, "the deliveries after the restart are wildcards")
				}
			}
		}
	}
	assert.Equal(t, []string{"a@1", "a@2", "a@3", "a@4", "b@3", "b@4"}, got)
}

func TestRestartsInjectedFollowsTheFuzzersFaultModel(t *testing.T) {
	sys := raft.System()
	assert.True(t, restartsInjected(sys, record.Options{raft.OptRestartWeight: "1"}, 1250), "restart-weight=1: restarts are in the model")
	assert.False(t, restartsInjected(sys, record.Options{}, 1250), "raft's default fuzzing restarts nothing")
	assert.False(t, restartsInjected(sys, record.Options{raft.OptKillWeight: "5"}, 1250), "kills are not restarts")
	assert.False(t, restartsInjected(paxos.System(), record.Options{}, 1), "a system whose generators make no restart")
	assert.True(t, restartsInjected(tokenring.System(), record.Options{}, 1), "the token ring's generators crash-restart members")
}

// retargetMinimizer is newStageMinimizer for best as its own input, with
// the retarget stage's allowance.
func retargetMinimizer(t *testing.T, sys *record.System, tr *record.Trace, opts record.Options, workers int) *minimizer {
	t.Helper()
	m, err := newStageMinimizer(sys, tr, tr, opts, workers)
	require.NoError(t, err)
	m.limit.Store(m.allowance(StageRetarget))
	return m
}

// TestRestartMovesEscapeAFIFOLocalMinimum runs the retarget stage on the
// result the pipeline gave raft-58a fresh seed 1250 before the restart
// moves: 30 deliveries, E:11, no restart (the fuzz run drew none, but it
// was fuzzed with restart-weight=1). Its term-2 candidate raft-3 rejects
// the term-1 leader's three appends, and the rejections sit in the FIFO
// queue ahead of the vote the last election needs. Restarting raft-3 before
// the appends reach it drops them: 22 deliveries, E:12; the handover and
// swap moves at the end of the stage (handover.go) then take that trace
// to 19 deliveries, E:12. With restarts out of the fault model
// (restart-weight=0) no move of the stage helps.
func TestRestartMovesEscapeAFIFOLocalMinimum(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-58a-fifo-local-minimum.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, [2]int{30, 11}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	for _, e := range tr.Events {
		require.NotEqual(t, record.Restart, e.Kind, "the input restarts nothing")
	}
	ctx := context.Background()

	m := retargetMinimizer(t, sys, tr, tr.Header.OptionMap(), 2)
	m.reordered = tr // as in the pipeline: a reorder stage tried its moves
	require.NoError(t, m.retarget(ctx))
	best := m.snapshotBest()
	assert.Equal(t, [2]int{19, 12}, [2]int{best.Header.Deliveries, best.Header.Externals})
	var restarts []record.ActorID
	for _, e := range best.Events {
		if e.Kind == record.Restart {
			restarts = append(restarts, e.Actor)
		}
	}
	assert.Equal(t, []record.ActorID{"raft-3"}, restarts)
	rep, err := replay.Run(ctx, sys, best)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	// The same trace with one worker: the result does not depend on it.
	one := retargetMinimizer(t, sys, tr, tr.Header.OptionMap(), 1)
	one.reordered = tr
	require.NoError(t, one.retarget(ctx))
	assert.Equal(t, best.Events, one.snapshotBest().Events)
	assert.Equal(t, m.steps.Load(), one.steps.Load(), "the same steps")

	opts := tr.Header.OptionMap()
	opts[raft.OptRestartWeight] = "0"
	m = retargetMinimizer(t, sys, tr, opts, 2)
	m.reordered = tr
	require.NoError(t, m.retarget(ctx))
	best = m.snapshotBest()
	assert.Equal(t, [2]int{30, 11}, [2]int{best.Header.Deliveries, best.Header.Externals}, "without restart moves")
}
