package minimize

import (
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Handover moves (the last moves of the retarget stage, retarget.go) escape
// a local minimum that needs two retargets at once: a round started by the
// wrong actor, and the external messages that actor then handled in the
// role the round gave it.
//
// A timer firing starts a round (Raft's election timeout: the winner
// leads), and the external messages its actor handles afterwards are often
// there because of that role (client commands sent to the leader). A timer
// retarget alone (retarget.go) gives the round to another actor, but the
// commands still go to the old one, which now forwards them, if it can, to
// a leader it may not know yet, so the check fails; a retarget of a
// command alone sends it to a follower. A handover move does both: the
// timer fires at another actor y, and the external messages delivered to
// the timer's actor after it are sent to y instead; in the cones of the
// timer and of those messages (every message they caused, the answers, and
// so on, but not a later timer firing, which starts a round of its own)
// the two actors trade places as senders and receivers. The deliveries
// after the timer are wildcards, and the move is checked and followed by a
// descent like every move of the stage.
//
// Under FIFO the local minimum looks like this from inside: a member that
// must answer a later round of the timer's actor (vote for it) also took
// part in its earlier round, and that round's messages and the member's
// answers sit in the two queues ahead of the later ones, so every one of
// them is needed. Given to y, the earlier round's messages travel on other
// links, and nothing needs them any more. So each handover comes in two
// forms: thin, where the deliveries of the cones between an actor and a
// third one (neither the timer's actor nor y) are left pending, and full,
// where they stay in the plan (for routes on which the third actor's part
// still matters). The thin form comes first: it is the route itself,
// where the full one needs its descent to find it.
//
// The same swap with two other actors x and y (neither the timer's
// actor) trades their parts in the round: the timer and the external
// messages stay, and in the same cones x and y trade places. It is the
// local minimum in which the wrong member answered a round, so that what
// the round gave it makes later rounds need it. These swaps (full form
// only) come after all handovers.

// handoverEdits lists the handover moves of events, in a fixed order: for
// every timer firing in trace order, and every other actor the trace
// starts in the order of their starts, the move that hands over the round
// with every external message delivered to the timer's actor after it
// (thin, then full), then, when there are several such messages, the
// moves that hand over the round with one of them (thin, then full), in
// trace order. A timer after which its actor handles no external message
// has the thin move only (the full one is its timer retarget, a move of
// the stage already). After the handovers of every timer come the swaps:
// for every timer firing in trace order, every pair of other started
// actors, in the order of their starts, trade their parts in its round.
func handoverEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out, swaps []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		sends := handedSends(events, i)
		for _, a := range actors {
			if a == e.To {
				continue
			}
			out = append(out, swapRound(i, sends, e.To, a, thinRound))
			if len(sends) == 0 {
				continue // the plain timer retarget is a move already
			}
			out = append(out, swapRound(i, sends, e.To, a, fullRound))
			if len(sends) > 1 {
				for _, k := range sends {
					out = append(out, swapRound(i, []int{k}, e.To, a, thinRound), swapRound(i, []int{k}, e.To, a, fullRound))
				}
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

// handedSends lists the send events of the external messages delivered to
// the actor of the timer firing at i after it, in the order of their
// deliveries: what a handover hands over with the timer's round.
func handedSends(events []record.Event, i int) []int {
	var sends []int
	for k := i + 1; k < len(events); k++ {
		if f := events[k]; f.Kind == record.Deliver && f.Timer == "" && f.From == record.External && f.To == events[i].To &&
			f.Cause >= 0 && f.Cause < len(events) && events[f.Cause].Kind == record.Send {
			sends = append(sends, f.Cause)
		}
	}
	return sends
}

// allThenEach returns the groups a move tries for the events ks: all of
// them together first, then, when there are several, each alone, in order.
func allThenEach(ks []int) [][]int {
	groups := [][]int{ks}
	if len(ks) > 1 {
		for _, k := range ks {
			groups = append(groups, []int{k})
		}
	}
	return groups
}

// roundForm is what a swapRound takes into the round of a timer.
type roundForm int

const (
	// fullRound: the causal cones of the timer and of the external
	// messages, later timer firings excluded (they start rounds of their
	// own); every delivery stays in the plan.
	fullRound roundForm = iota
	// thinRound: the same cones, with their deliveries from or to a third
	// actor (neither x nor y) left out of the plan (left pending).
	thinRound
	// timerCone: the timer's causal cone with the timer firings it caused
	// (a timer retarget, retarget.go).
	timerCone
)

// swapRound swaps actors x and y in the round of the timer at i: in the
// timer firing, the external messages of the send events at sends, their
// deliveries and every delivery of the causal cones of the timer and of
// those messages (as form says), x and y trade places as senders and
// receivers. With x the timer's actor this is a handover to y (the timer
// fires at y, the messages are sent to y); otherwise the timer and the
// messages stay and x and y trade their parts in the round. The deliveries
// after i are wildcards.
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
		drop := map[int]bool{}
		for k := i + 1; k < len(p); k++ {
			e := &p[k].Event
			if e.Kind != record.Deliver {
				continue
			}
			if in[e.Cause] && (e.Timer == "" || form == timerCone) {
				in[k] = true
				e.From, e.To = swap(e.From), swap(e.To)
				if form == thinRound && (e.From != record.External && e.From != x && e.From != y || e.To != x && e.To != y) {
					drop[k] = true
				}
			}
			p[k].Wildcard = true
		}
		if len(drop) == 0 {
			return p
		}
		out := p[:0]
		for k, st := range p {
			if !drop[k] {
				out = append(out, st)
			}
		}
		return out
	}
}
