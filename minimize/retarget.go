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

// retarget runs the retarget pass: the reorder search (reorder.go) over
// the retarget moves of external events, the reorder moves, the retarget
// moves of timers, the handover moves, then the redirect moves, in that order; after a move improves, the moves of
// the new best trace are all tried.
func (m *minimizer) retarget(ctx context.Context) error {
	return m.reorderWith(ctx, func(base *record.Trace) []edit {
		out := retargetEdits(base.Events)
		out = append(out, m.moves(base)...)
		out = append(out, timerRetargetEdits(base.Events)...)
		out = append(out, handoverEdits(base.Events)...) // handover.go
		return append(out, redirectEdits(base.Events)...)
	})
}

// redirectEdits lists the redirect moves of events, in a fixed order:
// every delivery, in trace order, to every other actor the trace starts.
// A redirect delivers a message of the same type from the same sender to
// another receiver instead (one the sender also sent), and lets every
// later delivery that finds nothing on its own link take a message of its
// type to the same receiver from another sender, or from the same sender
// to another receiver (dpor.Step.Reroute): the round moves to another
// member of a quorum, and the descent removes what that made unnecessary.
func redirectEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer != "" || e.From == record.External {
			continue
		}
		for _, a := range actors {
			if a != e.To && a != e.From {
				out = append(out, redirect(i, a))
			}
		}
	}
	return out
}

// redirect delivers the message of the delivery at i to actor to instead,
// the deliveries after it reroutable wildcards.
func redirect(i int, to record.ActorID) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := slices.Clone(bp)
		p[i].Event.To = to
		p[i].Wildcard = true
		for k := i + 1; k < len(p); k++ {
			if p[k].Event.Kind == record.Deliver {
				p[k].Wildcard, p[k].Reroute = true, true
			}
		}
		return p
	}
}
