package minimize

import (
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Repeat moves (the last moves of the retarget stage, retarget.go) escape a
// local minimum in which the trace runs a round again with the same actor
// where a round of another actor would do: the second round needs what
// only the first actor's state allows (its log, its term), and the trace
// pays for it with a detour.
//
// raft-58b's "reject, re-elect, resend" minimum is the example. raft-3
// leads term 2 with raft-1's vote, takes two client commands and
// replicates its entries to raft-1; raft-4 (which led term 1 with another
// entry) must then receive raft-3's second entry on top of its own first
// one, through an AppendEntries with prevLogIndex 1, the append the bug
// cannot check. raft-3 sends that only after a new election of its own
// (its next index for raft-4 starts past its log, raft-4 rejects, raft-3
// resends from index 1), so the removals keep a failed term-3 candidacy
// of raft-4 (so that raft-4 rejects raft-3's term-2 appends), raft-3's
// term-4 election, the rejection and the resent append: 38 deliveries
// (E:9) on unseen fuzz seed 911. The route it misses repeats raft-3's
// term-2 round with raft-1 in raft-3's place: raft-1, which holds raft-3's
// first entry, times out, wins term 3 with raft-3's vote, takes the
// client command and appends it to raft-4 with prevLogIndex 1 at once (22
// deliveries, E:9). No removal, reorder, retarget or handover makes it:
// the round is new (eight deliveries the trace never had), and raft-1's
// request to raft-3 waits, under FIFO, behind raft-1's two answers to
// raft-3's appends, which the trace never delivered either.
//
// A repeat move runs the round of a timer firing again, later, with the
// timer's actor x and another actor y trading places: at a position after
// the timer, the trace is cut, and the round follows: the timer fires at
// y, the external messages delivered to x after the timer (handedSends)
// are sent again, to y, and the deliveries of the causal cones of the
// timer and of those messages (later timer firings left out, as in a
// handover's full form) follow with x and y swapped as senders and
// receivers, each a wildcard, each after repeatFlush flush steps
// (dpor.Step.Flush: under FIFO, the messages queued ahead of it on its
// link are delivered first). The rest of the trace after the cut is left
// out: the repeated round must reach the violation itself. The check
// stops at the violation, and the descent removes what the new round made
// unnecessary (the old detour, the original commands, the flushed
// messages nothing needs).

// repeatFlush is how many messages queued ahead of a repeated round's
// delivery on its link a repeat move delivers first (the flush steps
// before it).
const repeatFlush = 3

// repeatEdits lists the repeat moves of events, in a fixed order: for
// every timer firing in trace order, every other actor the trace starts in
// the order of their starts, and the external messages handed over (all
// of those delivered to the timer's actor after it, then, when there are
// several, each one alone, in trace order), the round repeated at every
// cut from the last event back to just after the timer. The cut before
// the last event is the latest: a cut after it keeps the whole trace,
// which reproduces the violation before the round starts.
func repeatEdits(events []record.Event) []edit {
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		sends := handedSends(events, i)
		groups := allThenEach(sends)
		for _, y := range actors {
			if y == e.To {
				continue
			}
			for _, g := range groups {
				for at := len(events) - 1; at > i; at-- {
					out = append(out, repeatRound(i, g, e.To, y, at))
				}
			}
		}
	}
	return out
}

// repeatRound cuts the plan at at and repeats after it the round of the
// timer at i with x and y trading places: the timer, the external sends
// at sends (readdressed, and moved: the prefix loses them and their
// deliveries, its deliveries after the first one it loses become
// wildcards; those sent before the timer are sent again first, just
// before the timer fires at y) and the deliveries of their causal cones
// (later timer firings excluded), in trace order, each delivery a
// wildcard after repeatFlush flush steps on its link.
func repeatRound(i int, sends []int, x, y record.ActorID, at int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		swap := record.Perm{x: y, y: x}.Of // x and y trade places
		in := map[int]bool{i: true}
		for _, k := range sends {
			in[k] = true
		}
		p := make(dpor.Plan, 0, at+(len(bp)-i)*(repeatFlush+1))
		wild := false
		for k, st := range bp[:at] {
			e := st.Event
			if (in[k] && e.Kind == record.Send) || (e.Kind == record.Deliver && e.From == record.External && in[e.Cause]) {
				wild = true // handed over: sent again in the round
				continue
			}
			if wild && e.Kind == record.Deliver {
				st.Wildcard = true
			}
			p = append(p, st)
		}
		// The handed-over messages sent before the timer (the prefix lost
		// them): sent again, to y, as the round starts, in trace order.
		for _, k := range slices.Sorted(slices.Values(sends)) {
			if k < i && bp[k].Event.Kind == record.Send {
				st := bp[k]
				st.Event.To = swap(st.Event.To)
				p = append(p, st)
			}
		}
		for k := i; k < len(bp); k++ {
			st := bp[k]
			e := &st.Event
			switch {
			case k == i:
				e.From, e.To = swap(e.From), swap(e.To)
				st.Wildcard = true
			case e.Kind == record.Send && in[k]:
				e.To = swap(e.To)
			case e.Kind == record.Deliver && e.Timer == "" && in[e.Cause]:
				in[k] = true
				e.From, e.To = swap(e.From), swap(e.To)
				st.Wildcard = true
				fl := st
				fl.Flush = true
				for range repeatFlush {
					p = append(p, fl)
				}
			default:
				continue
			}
			p = append(p, st)
		}
		return p
	}
}
