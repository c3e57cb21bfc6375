package minimize

import (
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// A timer firing starts a round, and the external messages its actor handles afterwards are often there because of the
// role the round gave it (commands sent to a leader): a handover move gives both to another actor (swapRound).
//
// handoverEdits lists the handover moves of events: for every timer firing and every other started
// actor, the handover with every such message (full; thin when there is none: the timer alone fires
// elsewhere); then, for every timer firing, every pair of other started actors trade parts.
func handoverEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out, swaps []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		form, sends := fullRound, handedSends(events, i)
		if len(sends) == 0 {
			form = thinRound
		}
		for _, a := range actors {
			if a != e.To {
				out = append(out, swapRound(i, sends, e.To, a, form))
			}
		}
		for xi, x := range actors {
			for _, y := range actors[xi+1:] {
				if x != e.To && y != e.To {
					swaps = append(swaps, swapRound(i, sends, x, y, fullRound))
				}
			}
		}
	}
	return append(out, swaps...)
}

// handedSends lists the sends of the external messages delivered to the
// actor of the timer firing at i after it, in the order of delivery.
func handedSends(events []record.Event, i int) (sends []int) {
	for k := i + 1; k < len(events); k++ {
		if externalMessage(events, k) && events[k].To == events[i].To {
			sends = append(sends, events[k].Cause)
		}
	}
	return sends
}

// roundForm is what a swapRound takes into the round of a timer.
type roundForm int

const (
	// fullRound: the causal cones of the timer and of the external messages, later timer firings
	// excluded (they start rounds of their own); every delivery stays in the plan.
	fullRound roundForm = iota
	// thinRound: the same cones, with their deliveries from or to a third
	// actor (neither x nor y) left out of the plan (left pending).
	thinRound
)

// swapRound makes x and y trade places as senders and receivers in the round of the timer at i (with x
// the timer's actor, a handover to y): the timer firing, the sends' messages and their causal cones'
// deliveries, those with a third actor left pending in the thin form (they may block FIFO queues).
func swapRound(i int, sends []int, x, y record.ActorID, form roundForm) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := slices.Clone(bp)
		swap := record.Perm{x: y, y: x}.Of // x and y trade places
		in := map[int]bool{i: true}
		p[i].Event.From, p[i].Event.To = swap(p[i].Event.From), swap(p[i].Event.To)
		for _, k := range sends {
			in[k] = true
			p[k].Event.To = swap(p[k].Event.To)
		}
		var drop []int // sorted
		for k := i + 1; k < len(p); k++ {
			if e := &p[k].Event; e.Kind == record.Deliver && in[e.Cause] && e.Timer == "" {
				in[k] = true
				e.From, e.To = swap(e.From), swap(e.To)
				if form == thinRound && (e.From != record.External && e.From != x && e.From != y || e.To != x && e.To != y) {
					drop = append(drop, k)
				}
			}
		}
		return p.Without(drop, i+1, false) // deliveries after i wildcards, drop left out
	}
}
