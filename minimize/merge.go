package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Merge moves (the merge stage, a late stage: late.go) escape a local
// minimum in which one actor builds its state in two rounds where one
// would do. An actor that starts a round with a clock-advancing timer
// (record.ClockAdvancer: Raft's election timeout) and then handles external
// messages in the role the round gave it (client commands, as leader) may
// do so again in a later round of its own; the removals keep the later
// round whole, the timer and everything it caused (the requests, the
// votes), and whatever between the two made the actor lose its role (a
// crash-restart of it), because the external messages of the later round
// need it.
//
// raft-58a's stale nextIndex is the example: a leader must hold three
// entries when its log is cut back to one. On unseen fuzz seeds 8749 and
// 8708 the leader takes one client command in its term-1 leadership and
// two in its term-3 leadership, so the removals keep its re-election
// (and on 8749 the restart that ended the first leadership, with the
// appends rejected after it): 29 (E:13) and 50 (E:14) deliveries, where
// the best known route takes all three commands in one leadership (19,
// E:12).
//
// A merge move, for an actor x with two rounds a < b of its
// clock-advancing timers (the segments from one firing at x to the next)
// in each of which x handles external messages: the sends and deliveries
// of b's external messages (all of them, then each alone) move to just
// after x's last external delivery in a; b's timer firing and its causal
// cone (later clock-advancing timers excluded: they start rounds of their
// own) and x's restarts between the two are left out. The deliveries
// after the new position are wildcards. Left-out restarts let messages
// through that they used to drop (stale answers queued for x, of the
// same type as the one a later step wants), so each move comes in two
// forms: plain, then drained, where every internal delivery after the
// position is planned twice, each after mergeFlush flush steps
// (dpor.Step.Flush), so that a stale message at the head of a link can go
// first. The move is checked and followed by a descent like every move of
// the reorder stage (reorder.go).

// mergeFlush is how many flush steps precede each planned delivery of a
// drained merge move.
const mergeFlush = 2

// mergeEdits lists the merge moves of events, in a fixed order: for every
// started actor in the order of their starts, every pair of its rounds a <
// b that handle external messages, in trace order (a first), the move of
// all of b's external messages (plain, then drained), then, when there
// are several, of each one alone (plain, then drained).
func mergeEdits(events []record.Event) []edit {
	var out []edit
	for _, x := range startedActors(events) {
		rounds := clockRounds(events, x)
		for ai, a := range rounds {
			if len(a.handled) == 0 {
				continue
			}
			at := a.handled[len(a.handled)-1]
			for _, b := range rounds[ai+1:] {
				if len(b.handled) == 0 {
					continue
				}
				drop := timerConeOf(events, b.timer)
				for k := at + 1; k < b.timer; k++ {
					if e := events[k]; e.Kind == record.Restart && e.Actor == x {
						drop[k] = true
					}
				}
				for _, g := range allThenEach(b.handled) {
					moved := movedWith(events, g, at)
					out = append(out, mergeMove(at, moved, drop, false), mergeMove(at, moved, drop, true))
				}
			}
		}
	}
	return out
}

// clockRound is one round of an actor's clock-advancing timer: the firing,
// and the deliveries of external messages (sent by a send event of the
// trace) to the actor before its next such firing.
type clockRound struct {
	timer   int
	handled []int
}

// clockRounds lists the rounds of x's clock-advancing timers, in trace
// order.
func clockRounds(events []record.Event, x record.ActorID) []clockRound {
	var out []clockRound
	for k, e := range events {
		if e.Kind != record.Deliver || e.To != x {
			continue
		}
		if _, adv := clockOf(e); adv && e.Timer != "" {
			out = append(out, clockRound{timer: k})
			continue
		}
		if len(out) > 0 && e.From == record.External && e.Timer == "" &&
			e.Cause >= 0 && e.Cause < len(events) && events[e.Cause].Kind == record.Send {
			r := &out[len(out)-1]
			r.handled = append(r.handled, k)
		}
	}
	return out
}

// timerConeOf returns the timer firing at i, the events of more, and the
// deliveries after i of their causal cone (every delivery of a message
// one of them, or a delivery in the cone, sent), clock-advancing timer
// firings excluded.
func timerConeOf(events []record.Event, i int, more ...int) map[int]bool {
	in := map[int]bool{i: true}
	for _, s := range more {
		in[s] = true
	}
	for k := i + 1; k < len(events); k++ {
		e := events[k]
		if e.Kind != record.Deliver || !in[e.Cause] {
			continue
		}
		if _, adv := clockOf(e); adv && e.Timer != "" {
			continue
		}
		in[k] = true
	}
	return in
}

// movedWith returns, in trace order, the deliveries dels and the send
// events of their messages that come after at: what a merge move places
// after at.
func movedWith(events []record.Event, dels []int, at int) []int {
	var out []int
	for _, d := range dels {
		if s := events[d].Cause; s > at {
			out = append(out, s)
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// mergeMove places the events at moved right after at (in their order),
// leaves out the events in drop, and makes every delivery after at a
// wildcard; drained, each internal delivery after at is planned twice,
// each time after mergeFlush flush steps.
func mergeMove(at int, moved []int, drop map[int]bool, drained bool) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		skip := map[int]bool{}
		for _, k := range moved {
			skip[k] = true
		}
		n := len(bp) + len(moved)
		if drained {
			n *= 2 * (mergeFlush + 1)
		}
		p := make(dpor.Plan, 0, n)
		for k, st := range bp {
			if skip[k] || drop[k] {
				continue
			}
			e := st.Event
			if k <= at || e.Kind != record.Deliver {
				p = append(p, st)
			} else {
				st.Wildcard = true
				if drained && e.Timer == "" && e.From != record.External {
					fl := st
					fl.Flush = true
					for range 2 {
						for range mergeFlush {
							p = append(p, fl)
						}
						p = append(p, st)
					}
				} else {
					p = append(p, st)
				}
			}
			if k == at {
				for _, j := range moved {
					p = append(p, bp[j])
				}
			}
		}
		return p
	}
}

// mergeStage runs the merge stage: the sink moves (sink.go), then the
// merge moves of the best trace, in order, each checked and followed by a
// descent (reorder.go); the first that ends smaller than the best trace
// replaces it, and the moves of the new best trace are tried, until none
// improves it.
func (m *minimizer) mergeStage(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		base := m.snapshotBest()
		moves := mergeMoves(base.Events)
		bp := dpor.FromEvents(m.fp, base.Events)
		_, tr, err := m.firstTrace(ctx, len(moves), reorderChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
			return m.tryMove(ctx, c, base, moves[i](c.Fingerprinter(), bp))
		})
		if err != nil || tr == nil || !m.offer(tr) {
			return err
		}
	}
}

// mergeMoves lists the moves of the merge stage: the sink moves, the
// merge moves, the candidacy merges (mergecand.go), then the carried
// restarts (mergecarry.go).
func mergeMoves(events []record.Event) []edit {
	out := append(sinkEdits(events), mergeEdits(events)...)
	out = append(out, candidacyEdits(events)...)
	return append(out, carryEdits(events)...)
}
