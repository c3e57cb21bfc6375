package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Resend moves (the last moves of the retarget stage, retarget.go) hand a
// timer's round over to another actor y (as a handover does, handover.go)
// where y cannot run the same round from the state it is in, and adjust
// that state first. They read what is pending just before the timer fires
// from a replay of the best trace, and use it three ways:
//
//   - another timer: when y has no pending timer of the timer's key but
//     has one of another key, that one fires instead. Raft's "reject,
//     re-elect, resend" local minimum needs it: a second election exists
//     only so that its winner resends an append to the victim, which the
//     leader that last appended to the victim would do on its own next
//     Heartbeat; but a leader has no pending election timeout, so no
//     handover or repeat move can give it the round.
//   - catch-up: the head of every link into y is delivered to y before the
//     timer fires (all of them, then each one alone): a message that
//     raises y's term (Raft's pending RequestVote of a later term) makes
//     y's timeout start a candidacy of the term after it, which a member
//     that voted in the earlier term answers.
//   - a deep flush: under FIFO, every message pending on a link of the
//     round (after the swap) is delivered, in order, just before the
//     round's first delivery on that link, where repeat and handover
//     moves flush at most repeatFlush messages of other types: the
//     round's messages are sent behind them, and the stale answers
//     queued ahead are of the same types as the round's.
//
// The round is the causal cone of the timer and of the external messages
// delivered to x after it (handedSends), with the timer firings it caused
// (the leader's Heartbeat that resends), in which x and y trade places as
// senders and receivers; the rest of the trace stays, every delivery
// after the timer a wildcard, and each delivery of the round follows
// repeatFlush flush steps, as in a repeat move. A flushed or caught-up
// message that the trace delivered later loses that later delivery (it
// has moved). The move is checked and followed by a descent like every
// move of the stage: it is often uphill at first (the flushed messages),
// and the descent removes the detour the old round had needed.
//
// On raft-58b unseen fuzz seed 7154 the pipeline stops at 35 deliveries
// (E:8): raft-3 is re-elected in term 3 only to resend raft-2's entry to
// raft-4 from index 1. The resend move of raft-3's term-3 timeout to
// raft-2, which leads term 2 and fires its Heartbeat instead, with raft-4's
// four queued answers to raft-2 flushed, reproduces the violation at 38
// deliveries, and its descent ends at 21 (DIAG: the edit by hand).

// resendEdits lists the resend moves of base, in a fixed order: for every
// timer firing in trace order, and every other actor y the trace starts,
// in the order of their starts, that is running just before it and has a
// pending timer, the move with every handed-over external message, then
// (when there are several) with each one alone; each without catch-up,
// then (when y has messages pending to it) with the heads of all its
// links, then (when there are several) with each head alone. It returns
// the steps of the replay that read the pending messages.
func (m *minimizer) resendEdits(ctx context.Context, base *record.Trace) ([]edit, int64, error) {
	pend, steps, err := pendingAtTimers(ctx, m.sys, base, m.target)
	if err != nil {
		return nil, steps, err
	}
	fifo := m.fifo()
	events := base.Events
	actors := startedActors(events)
	var out []edit
	for i, e := range events {
		st, ok := pend[i]
		if !ok {
			continue
		}
		sends := handedSends(events, i)
		groups := allThenEach(sends)
		for _, y := range actors {
			if y == e.To || !slices.Contains(st.running, y) {
				continue
			}
			tm, ok := st.timerOf(y, e.Timer)
			if !ok {
				continue
			}
			heads := st.heads(y)
			catchUps := [][]record.Pending{nil}
			if len(heads) > 0 {
				catchUps = append(catchUps, heads)
			}
			if len(heads) > 1 {
				for _, h := range heads {
					catchUps = append(catchUps, []record.Pending{h})
				}
			}
			for _, g := range groups {
				for _, c := range catchUps {
					out = append(out, resendRound(i, g, e.To, y, tm, c, st.queued, fifo))
				}
			}
		}
	}
	return out, steps, nil
}

// timerState is what is pending just before a timer firing of the best
// trace: the running actors, and the messages in flight in flight order.
type timerState struct {
	running []record.ActorID
	pending []record.Pending
}

// timerOf returns the timer that fires at y in a round handed over from
// a timer of key key: nil when y has a pending timer of that key (the
// round's own timer fires, swapped), else y's first pending timer of
// another key; false when y has no pending timer.
func (s timerState) timerOf(y record.ActorID, key string) (*record.Pending, bool) {
	var other *record.Pending
	for k := range s.pending {
		p := &s.pending[k]
		if p.To != y || p.Timer == "" {
			continue
		}
		if p.Timer == key {
			return nil, true
		}
		if other == nil {
			other = p
		}
	}
	return other, other != nil
}

// heads returns the first pending message of every link into y (timers
// left out), in flight order.
func (s timerState) heads(y record.ActorID) []record.Pending {
	var out []record.Pending
	seen := map[record.ActorID]bool{}
	for _, p := range s.pending {
		if p.To == y && p.Timer == "" && !seen[p.From] {
			seen[p.From] = true
			out = append(out, p)
		}
	}
	return out
}

// queued returns the messages pending on the link from from to to (timers
// left out), in flight order.
func (s timerState) queued(from, to record.ActorID) []record.Pending {
	var out []record.Pending
	for _, p := range s.pending {
		if p.From == from && p.To == to && p.Timer == "" {
			out = append(out, p)
		}
	}
	return out
}

// pendingAtTimers replays base exactly and returns, for every timer
// firing of it (by event index), what is pending just before it fires,
// with the steps the replay ran. The replay stops at the target
// violation.
func pendingAtTimers(ctx context.Context, sys *record.System, base *record.Trace, target string) (map[int]timerState, int64, error) {
	d, err := record.NewDriver(base.Setup(sys), base.Events, record.Follow{Want: record.Want(target)})
	if err != nil {
		return nil, 0, fmt.Errorf("resend: replaying the best trace: %w", err)
	}
	out := map[int]timerState{}
	var steps int64
	for k := 0; k < len(base.Events); k++ {
		if e := base.Events[k]; e.Kind == record.Deliver && e.Timer != "" {
			sim := d.Sim()
			st := timerState{pending: slices.Clone(sim.InFlight())}
			for _, a := range sim.View().Members() {
				if sim.View().Running(a) {
					st.running = append(st.running, a)
				}
			}
			out[k] = st
		}
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) || errors.Is(err, record.ErrHalted) {
			break
		}
		if err != nil {
			return nil, steps, fmt.Errorf("resend: replaying the best trace: %w", err)
		}
		steps++
		if o.Found || o.Divergence != nil || d.Stopped() {
			break
		}
	}
	return out, steps, nil
}

// resendRound hands the round of the timer at i over from x to y: the
// messages of catchUp delivered to y first, then the timer at y (tm, or
// the round's own timer swapped when tm is nil), the external sends at
// sends readdressed to y, and in the cones of the timer and of those
// messages (the timer firings they caused included) x and y trading
// places; under FIFO (fifo) each link's messages pending at the timer
// (queued) are delivered before the round's first delivery on it. The
// deliveries after the timer are wildcards, the round's after repeatFlush
// flush steps; a later delivery of a message delivered earlier by the
// move is left out.
func resendRound(i int, sends []int, x, y record.ActorID, tm *record.Pending, catchUp []record.Pending, queued func(from, to record.ActorID) []record.Pending, fifo bool) edit {
	return func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		swap := record.Perm{x: y, y: x}.Of // x and y trade places
		in := map[int]bool{i: true}
		for _, k := range sends {
			in[k] = true
		}
		moved := map[record.MsgID]bool{} // delivered early by the move
		deliver := func(q record.Pending) dpor.Step {
			moved[q.ID] = true
			return dpor.Step{Event: q.Delivery(), FP: fp.Of(q.Msg), Wildcard: true}
		}
		p := make(dpor.Plan, 0, len(bp)*(repeatFlush+2))
		for k, st := range bp[:i] {
			if in[k] && st.Event.Kind == record.Send {
				st.Event.To = swap(st.Event.To)
			}
			p = append(p, st)
		}
		for _, q := range catchUp {
			p = append(p, deliver(q))
		}
		t := bp[i]
		if tm != nil {
			t.Event = tm.Delivery()
			t.FP = fp.Of(tm.Msg)
		} else {
			t.Event.From, t.Event.To = swap(t.Event.From), swap(t.Event.To)
		}
		t.Wildcard = true
		p = append(p, t)
		type link struct{ from, to record.ActorID }
		flushed := map[link]bool{}
		for k := i + 1; k < len(bp); k++ {
			st := bp[k]
			e := &st.Event
			if e.Kind == record.Send && in[k] {
				e.To = swap(e.To)
			}
			if e.Kind != record.Deliver {
				p = append(p, st)
				continue
			}
			if moved[e.ID] && !in[e.Cause] {
				continue // delivered earlier by the move
			}
			st.Wildcard = true
			if in[e.Cause] {
				in[k] = true
				e.From, e.To = swap(e.From), swap(e.To)
				if e.Timer == "" {
					if l := (link{e.From, e.To}); fifo && !flushed[l] {
						flushed[l] = true
						for _, q := range queued(l.from, l.to) {
							if !moved[q.ID] {
								p = append(p, deliver(q))
							}
						}
					}
					fl := st
					fl.Flush = true
					for range repeatFlush {
						p = append(p, fl)
					}
				}
			}
			p = append(p, st)
		}
		return p
	}
}
