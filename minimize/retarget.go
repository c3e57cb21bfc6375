package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// retargetEdits lists the moves (reorder.go) that address an external
// send, kill or restart to another started actor: the fuzzer chose each
// target at random, and a route through another actor may be shorter.
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

// retarget addresses the external event at i (a send with its delivery)
// to actor to instead, wildcards after it.
func retarget(i int, to record.ActorID) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := slices.Clone(bp)
		if p[i].Event.Kind == record.Send {
			p[i].Event.To = to
		} else {
			p[i].Event.Actor = to
		}
		for k := i + 1; k < len(p); k++ {
			if p[k].Event.Kind == record.Deliver && p[k].Event.Cause == i {
				p[k].Event.To = to
			}
		}
		return wildcards(p, i+1)
	}
}

// retarget runs the retarget pass: reorderWith over the retargets, the
// reorder moves, the handovers and the redirects, in that order.
func (m *minimizer) retarget(ctx context.Context) error {
	return m.reorderWith(ctx, func(base *record.Trace) []edit {
		out := retargetEdits(base.Events)
		out = append(out, m.moves(base)...)
		out = append(out, handoverEdits(base.Events)...) // handover.go
		return append(out, redirectEdits(base.Events)...)
	})
}

// redirectEdits lists the moves that deliver a message to another started
// actor instead, the later deliveries reroutable (a round moves to another
// member of a quorum).
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
		p := dropped(bp, nil, i+1, true) // a copy, nothing dropped
		p[i].Event.To, p[i].Wildcard = to, true
		return p
	}
}
