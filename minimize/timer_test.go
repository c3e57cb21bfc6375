package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quorum system: c waits for the votes of a, b and d, and decides when
// all three are in, or when its timer fires with at least one. Every
// member arms the same timer on start; a and b vote on start, d when its
// timer fires. The violation: c decided. The input waits for every vote
// (d's timer, then the three votes: 4 deliveries); the cheap route is a's
// vote and c's timer (2). No removal gets there, since c's timer never
// fired in the input.
type (
	qVote struct{}
	qTick struct{}
)

type quorumActor struct {
	votes   int
	decided bool
}

func (q *quorumActor) Start(ctx *record.Context) {
	ctx.SetTimer("wait", qTick{})
	if id := ctx.Self(); id == "a" || id == "b" {
		ctx.Send("c", qVote{})
	}
}

func (q *quorumActor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch msg.(type) {
	case qVote:
		q.votes++
		q.decided = q.decided || q.votes == 3
	case qTick:
		if ctx.Self() == "d" {
			ctx.Send("c", qVote{})
		}
		q.decided = q.decided || (ctx.Self() == "c" && q.votes > 0)
	}
}

func quorumSystem() *record.System {
	members := []record.ActorID{"a", "b", "c", "d"}
	return &record.System{
		Name:     "quorum",
		Members:  func(record.Options) []record.ActorID { return members },
		New:      func(record.ActorID, record.Options) record.Actor { return &quorumActor{} },
		Messages: []record.Message{qVote{}, qTick{}},
		Network:  func(record.Options) record.Semantics { return record.Unordered },
		Invariant: func(v record.View) *record.Violation {
			if q, ok := v.Actor("c").(*quorumActor); ok && q.decided {
				return &record.Violation{Fingerprint: "decided"}
			}
			return nil
		},
	}
}

// quorumInput runs the starts, d's timer and the three votes to c.
func quorumInput(t *testing.T, sys *record.System) *record.Trace {
	t.Helper()
	sim, err := record.NewSim(sys, record.Options{}, 0)
	require.NoError(t, err)
	for _, id := range []record.ActorID{"c", "d", "a", "b"} {
		require.NoError(t, sim.Apply(record.StartEvent(id)))
	}
	deliver := func(from, to record.ActorID, msg record.Message) { deliverPending(t, sim, from, to, msg) }
	deliver("d", "d", qTick{})
	deliver("a", "c", qVote{})
	deliver("b", "c", qVote{})
	deliver("d", "c", qVote{})
	v := sim.Check()
	require.NotNil(t, v)
	return sim.Trace(v)
}

// TestSearchesEndAStepOnATimer minimizes the quorum input. The route of a's
// or b's vote and c's timer is found twice over: by retarget, which fires
// c's timer in place of d's vote (an internal message), and by the
// exhaustive searches (shrink-search, suffix-search, optimum).
// Without both the result stays at 4 deliveries; with both, the run keeps
// b's vote (a's before a descent's deliveries could take another sender's
// message, reorder.go).
func TestSearchesEndAStepOnATimer(t *testing.T) {
	sys := quorumSystem()
	in := quorumInput(t, sys)
	require.Equal(t, 4, in.Header.Deliveries)
	run := func(skip ...string) *record.Trace {
		res, err := minimize.Run(context.Background(), sys, in, minimize.Config{Budget: time.Minute, Workers: 2, Skip: skip})
		require.NoError(t, err)
		return res.Trace
	}
	searches := []string{minimize.StageShrinkSearch, minimize.StageSuffixSearch, minimize.StageOptimum}
	assert.Equal(t, 4, run(append(searches, minimize.StageRetarget)...).Header.Deliveries)
	assert.Equal(t, 2, run(searches...).Header.Deliveries, "retarget alone")
	assert.Equal(t, 2, run(minimize.StageRetarget).Header.Deliveries, "the searches alone")
	got := run()
	var dels []string
	for _, e := range got.Events {
		if e.Kind == record.Deliver {
			dels = append(dels, string(e.From)+">"+string(e.To)+" "+record.TypeName(e.Msg))
		}
	}
	assert.Equal(t, []string{"b>c qVote", "c>c qTick"}, dels)
	rep, err := replay.Run(context.Background(), sys, got)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
