package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Retarget moves (the retarget stage runs the reorder stage's search,
// reorder.go, led by them) escape a local minimum that neither removals nor
// reorderings reach: an external event addressed to the wrong actor. A
// fuzzed run sends its client commands to members at random; a command sent
// to a follower reaches the leader only after the follower has learnt who
// leads (an append from the leader) and forwarded it, so the removals keep
// an extra vote, an append and a forwarding per command, where the same
// command sent to the leader itself costs one delivery. Likewise a crash of
// one member may be what the violation needs, but of another one. A
// retarget move sends an external message to another actor (its delivery
// follows it), or kills or restarts another actor; the deliveries after it
// are wildcards, and the descent that follows every move removes what the
// new target no longer needs.

// retargetEdits lists the retarget moves of events, in a fixed order:
// every external send, kill and restart, in trace order, to every other
// actor the trace starts, in the order of their starts.
func retargetEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		var cur record.ActorID
		switch e.Kind {
		case record.Send:
			cur = e.To
		case record.Kill, record.Restart:
			cur = e.Actor
		default:
			continue
		}
		for _, a := range actors {
			if a != cur {
				out = append(out, retarget(i, a))
			}
		}
	}
	return out
}

// retarget addresses the external event at i to actor to instead (a send
// with its delivery, or a kill or restart); the deliveries after it are
// wildcards.
func retarget(i int, to record.ActorID) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := slices.Clone(bp)
		if p[i].Event.Kind == record.Send {
			p[i].Event.To = to
		} else {
			p[i].Event.Actor = to
		}
		for k := i + 1; k < len(p); k++ {
			if p[k].Event.Kind != record.Deliver {
				continue
			}
			if p[k].Event.Cause == i {
				p[k].Event.To = to
			}
			p[k].Wildcard = true
		}
		return p
	}
}

// timerRetargetEdits lists the retarget moves of timer firings, in a fixed
// order: every timer firing, in trace order, to every other actor the trace
// starts, in the order of their starts.
//
// A timer firing is what starts a round of messages (Raft's election
// timeout: a candidate's requests and the answers to them), and which actor
// it fires at is as much the fuzzer's choice as the target of an external
// event. When the removals keep a round started by the wrong actor (a
// member that must then reject the messages it would otherwise accept, with
// rejections that sit in FIFO queues ahead of later, needed messages), no
// single removal undoes it: every message of the round is needed by the
// rest. The move swaps the roles of the two actors in the timer's causal
// cone.
func timerRetargetEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		for _, a := range actors {
			if a != e.To {
				out = append(out, swapRound(i, nil, e.To, a, timerCone)) // handover.go
			}
		}
	}
	return out
}

// retarget runs the retarget stage: the reorder stage's search (reorder.go)
// with the retarget moves of external events first, then the reorder
// moves, then the retarget moves of timers, the handover, restart, repeat
// and resend moves, and last the hasten moves (hasten.go) (each kind
// after the older ones, so that a trace on which an earlier move helps
// takes the same path as before it existed). The
// reorder moves
// of a trace a reorder stage has tried them all on without success are
// left out (they would fail again); after a move improves, the moves of
// the new best trace are all tried.
func (m *minimizer) retarget(ctx context.Context) error { return m.retargetWith(ctx, true) }

// retargetWith runs the retarget stage, with the reorder moves of a trace
// no reorder stage tried them on when reorders, or without them (the late
// stages' later passes, late.go: the reorder moves belong to the rounds).
func (m *minimizer) retargetWith(ctx context.Context, reorders bool) error {
	restarts := m.restartable()
	return m.reorderWith(ctx, func(base *record.Trace) []edit {
		out := retargetEdits(base.Events)
		if reorders && base != m.reordered {
			out = append(out, m.moves(base)...)
		}
		out = append(out, timerRetargetEdits(base.Events)...)
		out = append(out, handoverEdits(base.Events)...) // handover.go
		if restarts {
			out = append(out, restartEdits(base.Events)...) // restart.go
		}
		out = append(out, repeatEdits(base.Events)...) // repeat.go
		// resend.go, when the stage has steps left (its replay counts);
		// a replay that fails (ctx) leaves its moves out.
		if m.steps.Load() < m.end() {
			if rs, steps, err := m.resendEdits(ctx, base); err == nil {
				m.steps.Add(steps)
				out = append(out, rs...)
			}
		}
		return append(out, hastenEdits(base.Events)...) // hasten.go
	}, false)
}
