package minimize

import (
	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Carried restarts (the merge stage, merge.go) escape a local minimum that
// needs a handover (handover.go) and a crash-restart moved at once. A
// round started by the wrong actor x could be y's, but y was
// crash-restarted shortly before it (after its last delivery), which the
// removals keep because the rest of the trace needs what the restart
// drops: the stale messages queued for y, the vote y cast before. Handed
// the round, y would start it with its state wiped (Raft: term 0, so its
// candidacy is refused by a leader of term 1), so the handover alone does
// not reproduce; the restart moved alone changes nothing that a removal
// can use. Both at once: y runs the round with its state, and is
// restarted right after the round, where the restart still drops what it
// dropped for the rounds after it.
//
// raft-58a unseen fuzz seed 10184 is the example. The stages before stop
// at 22 deliveries (E:13): raft-4 leads term 1 with raft-2's vote and
// takes three commands; raft-3, restarted early, learns term 1 from
// raft-4's empty append (an InitLeader self-delivery, the append and its
// answer), raft-2 is restarted, and raft-3 wins term 2 with raft-2's vote
// and cuts raft-4's log. raft-2, which already holds term 1, can run that
// round itself: handed raft-3's term-2 round and command, with its restart
// carried to after its cutting append, the route is the best known one,
// 19 deliveries (E:12), at once.
//
// A carried-restart move, for every timer firing i at x, every other actor
// y with a crash-restart r before i and no delivery to y between r and i,
// and the external messages delivered to x after i (all of them, then each
// alone, or none when there are none): the full handover of the round to
// y (swapRound, fullRound) with r moved to just after the last delivery of
// the round's causal cones (the timer's and the handed messages', later
// clock-advancing timers excluded). The deliveries after r's old position
// are wildcards. The move is checked and followed by a descent like every
// move of the merge stage.

// carryEdits lists the carried-restart moves of events, in a fixed order:
// every timer firing in trace order, every other actor with a restart
// before it in the order of the starts, every group of the handed
// messages (all, then each alone).
func carryEdits(events []record.Event) []edit {
	var out []edit
	actors := startedActors(events)
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		sends := handedSends(events, i) // handover.go
		groups := [][]int{nil}
		if len(sends) > 0 {
			groups = allThenEach(sends)
		}
		for _, y := range actors {
			if y == e.To {
				continue
			}
			r := restartBefore(events, y, i)
			if r < 0 {
				continue
			}
			for _, g := range groups {
				if end := roundEnd(events, i, g); end > i {
					out = append(out, carryRestart(i, g, e.To, y, r, end))
				}
			}
		}
	}
	return out
}

// restartBefore returns the last crash-restart of y before position i
// with no delivery to y between it and i, or -1.
func restartBefore(events []record.Event, y record.ActorID, i int) int {
	for k := i - 1; k >= 0; k-- {
		e := events[k]
		if e.Kind == record.Restart && e.Actor == y {
			return k
		}
		if e.Kind == record.Deliver && e.To == y {
			return -1
		}
	}
	return -1
}

// roundEnd returns the last delivery of the causal cones of the timer at
// i and of the messages of the send events sends (later clock-advancing
// timers excluded), or i.
func roundEnd(events []record.Event, i int, sends []int) int {
	end := i
	for k := range timerConeOf(events, i, sends...) {
		if k > end && events[k].Kind == record.Deliver {
			end = k
		}
	}
	return end
}

// carryRestart hands the round of the timer at i with the external
// messages of sends from x to y (a full handover) and moves the restart at
// r to just after end (reorder.go's moveTo); the deliveries from r on are
// wildcards.
func carryRestart(i int, sends []int, x, y record.ActorID, r, end int) edit {
	return func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := swapRound(i, sends, x, y, fullRound)(fp, bp) // the same positions: full drops nothing
		return moveTo(r, end+1)(fp, p)
	}
}
