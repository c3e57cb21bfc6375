package minimize

import (
	"maps"
	"slices"

	"github.com/demi-project/demi/record"
)

// Candidacy merges (the merge stage, merge.go) escape a local minimum in
// which a round that leads nowhere stands in for part of a later round of
// another actor. An actor y fires its clock-advancing timer
// (record.ClockAdvancer: Raft's election timeout) and sends requests; one
// of them reaches z, and z later fires its own clock-advancing timer. y's
// round handles no external message (it won nothing the trace uses), but
// it advanced z's clock early: from then on z refuses the messages of the
// clock z had before (Raft: the term-1 leader's appends, rejected in term
// 2), and y must be crash-restarted to take part in z's round (to vote in
// it). The removals keep all of it: without y's round, z accepts what it
// used to refuse and the route changes; without the refused messages, z's
// answers no longer tell their sender to step down. Yet z's own round
// advances z's clock by itself: the same route exists with z's round alone
// and the refused messages never delivered.
//
// raft-58a unseen fuzz seed 10936 is the example. The stages before stop at
// 28 deliveries (E:13): raft-4 leads term 1 and takes three commands;
// raft-2's failed term-2 candidacy reaches raft-3, which then rejects
// raft-4's three appends; raft-2 is restarted, raft-3 wins term 3 with its
// vote and cuts raft-4's log, and raft-4 wins term 4 and panics. Where the
// best known route (19 deliveries, E:12) has the cutter's own request make
// the leader step down, here a third member's candidacy, its restart and
// six append and reject deliveries do. Left out together, raft-3's round
// is term 2's, the same route: 20 deliveries (E:12) at once.
//
// A candidacy merge, for a clock-advancing timer firing t at y whose round
// handles no external message, and every other actor z its causal cone
// delivers to (in the order of the first such delivery d), with z's next
// clock-advancing timer firing t2 after d: t's causal cone (later
// clock-advancing timers excluded) and y's crash-restarts between t and t2
// are left out, and the deliveries after t are wildcards. It comes in two
// forms: quiet, where z's other internal deliveries between d and t2 are
// left out too, with their causal cones (they were handled at the clock
// y's round gave z), then plain, where they stay. Each is checked and
// followed by a descent like every move of the merge stage.

// candidacyEdits lists the candidacy merges of events, in a fixed order:
// every clock-advancing timer firing in trace order whose round handles no
// external message, every actor its cone delivers to in the order of the
// first such delivery, quiet, then plain.
func candidacyEdits(events []record.Event) []edit {
	var out []edit
	for _, y := range startedActors(events) {
		for _, r := range clockRounds(events, y) {
			if len(r.handled) > 0 {
				continue
			}
			cone := timerConeOf(events, r.timer)
			for _, z := range coneReceivers(events, cone, y) {
				d, t2 := z.first, nextClockTimer(events, z.actor, z.first)
				if t2 < 0 {
					continue
				}
				drop := map[int]bool{}
				for k := range cone {
					drop[k] = true
				}
				for k := r.timer + 1; k < t2; k++ {
					if e := events[k]; e.Kind == record.Restart && e.Actor == y {
						drop[k] = true
					}
				}
				quiet := map[int]bool{}
				for k := range drop {
					quiet[k] = true
				}
				for k := d + 1; k < t2; k++ {
					if e := events[k]; !cone[k] && e.Kind == record.Deliver && e.To == z.actor && e.Timer == "" && e.From != record.External {
						for j := range timerConeOf(events, k) {
							quiet[j] = true
						}
					}
				}
				if len(quiet) > len(drop) {
					out = append(out, removal(slices.Sorted(maps.Keys(quiet)), r.timer+1))
				}
				out = append(out, removal(slices.Sorted(maps.Keys(drop)), r.timer+1))
			}
		}
	}
	return out
}

// coneReceiver is an actor a timer's causal cone delivers to, and the
// cone's first delivery to it.
type coneReceiver struct {
	actor record.ActorID
	first int
}

// coneReceivers lists the actors other than y that the deliveries of cone
// go to, in the order of the first delivery to each.
func coneReceivers(events []record.Event, cone map[int]bool, y record.ActorID) []coneReceiver {
	var out []coneReceiver
	seen := map[record.ActorID]bool{y: true}
	for k, e := range events {
		if cone[k] && e.Kind == record.Deliver && !seen[e.To] {
			seen[e.To] = true
			out = append(out, coneReceiver{actor: e.To, first: k})
		}
	}
	return out
}

// nextClockTimer returns the first clock-advancing timer firing at z after
// position d, or -1.
func nextClockTimer(events []record.Event, z record.ActorID, d int) int {
	for k := d + 1; k < len(events); k++ {
		if e := events[k]; e.Kind == record.Deliver && e.To == z && e.Timer != "" {
			if _, adv := clockOf(e); adv {
				return k
			}
		}
	}
	return -1
}
