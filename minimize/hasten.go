package minimize

import (
	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Hasten moves (the last moves of the retarget stage, retarget.go) escape
// a local minimum in which an actor reaches a higher term through whole
// elections where bare timer firings would do: a first leader is elected,
// takes a client command so that a later candidate is refused, and the
// terms the violation needs are reached by rounds that each need their
// votes and appends. Removing one of those rounds changes who leads and
// what follows, so no removal, reorder or retarget leaves them out.
//
// raft-56's unseen fuzz seed 50121 is the example. The removals end at 25
// deliveries (E:7): raft-2 leads term 1 with a client command, raft-3
// times out into term 2 and is refused (its log is behind), then raft-2
// and raft-1 time out into term 3 and raft-3 grants both (the raft-56
// bug: a candidate that steps down forgets its vote). The route it misses
// fires the same timers right after raft-2's first requests: raft-3
// becomes a candidate of term 1, raft-2 and raft-1 candidates of term 2,
// and raft-3 grants both term-2 requests (16 deliveries, E:6; no leader of
// term 1, no client command). The rounds of the old route are new there
// only in their order: the later timers' firings and their requests come
// before the first round's votes and appends.
//
// A hasten move cuts the trace at a position and moves every timer firing
// after the cut to the cut, in order, followed by the deliveries those
// firings caused directly (the requests of the elections they start), in
// order; the rest of the trace follows, and every delivery from the cut
// on is a wildcard. The descent that follows every move removes what the
// earlier elections made unnecessary (the old rounds' votes and appends,
// the client command).

// hastenEdits lists the hasten moves of events, in a fixed order: one per
// cut from the last event back to the first, for the cuts with a timer
// firing after them whose move changes the order of the events.
func hastenEdits(events []record.Event) []edit {
	var out []edit
	for at := len(events) - 1; at > 0; at-- {
		if order := hastenOrder(events, at); order != nil {
			out = append(out, hasten(at, order))
		}
	}
	return out
}

// hastenOrder returns the order of the events from at on under the hasten
// move at at (indices into events): the timer firings after the cut, the
// deliveries each of them caused directly, then the rest, each group in
// trace order; nil when that is the trace's own order (no timer fires
// after the cut, or the firings and their deliveries already lead).
func hastenOrder(events []record.Event, at int) []int {
	timer := map[int]bool{}
	var timers, caused, rest []int
	for i := at; i < len(events); i++ {
		e := events[i]
		switch {
		case e.Kind == record.Deliver && e.Timer != "":
			timer[i] = true
			timers = append(timers, i)
		case e.Kind == record.Deliver && timer[e.Cause]:
			caused = append(caused, i)
		default:
			rest = append(rest, i)
		}
	}
	order := append(append(timers, caused...), rest...)
	for k, i := range order {
		if i != at+k {
			return order
		}
	}
	return nil
}

// hasten is the hasten move at cut at, whose events from at on come in
// order (hastenOrder of the plan's events); the deliveries from at on are
// wildcards.
func hasten(at int, order []int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := make(dpor.Plan, 0, len(bp))
		p = append(p, bp[:at]...)
		for _, i := range order {
			st := bp[i]
			if !st.Event.Kind.IsExternal() {
				st.Wildcard = true
			}
			p = append(p, st)
		}
		return p
	}
}
