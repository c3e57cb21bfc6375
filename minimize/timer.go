package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// The fire-timer pass ends a step on a timer where the trace waited for a
// message: an actor that acts once it has heard from enough others (a
// round that ends when every vote is in) may act on its timer instead,
// having heard from fewer. The removals cannot find that route, since the
// timer never fired in the trace (it was cancelled when the last message
// came). For a delivery i to actor x, and for each timer key and message
// type the trace fires, a move fires that timer at x in i's place, or
// drops i and fires it right after the next delivery to x; the descent
// then drops the messages x no longer needs.

// firesTimers reports whether the best trace fires a timer.
func (m *minimizer) firesTimers(context.Context) bool {
	return len(firedTimers(m.snapshotBest().Events)) > 0
}

// fireTimer runs the fire-timer pass: reorderWith over timerEdits.
func (m *minimizer) fireTimer(ctx context.Context) error {
	return m.reorderWith(ctx, func(base *record.Trace) []edit { return timerEdits(base.Events) })
}

// firedTimers returns the first firing of each timer key and message type
// in events, in trace order.
func firedTimers(events []record.Event) []record.Event {
	var out []record.Event
	seen := map[[2]string]bool{}
	for _, e := range events {
		if k := [2]string{e.Timer, record.TypeName(e.Msg)}; e.Kind == record.Deliver && e.Timer != "" && !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// timerEdits lists the fire-timer moves of events, in trace order.
func timerEdits(events []record.Event) []edit {
	timers := firedTimers(events)
	var out []edit
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer != "" || e.From == record.External {
			continue
		}
		next := -1
		for k := i + 1; k < len(events) && next < 0; k++ {
			if events[k].Kind == record.Deliver && events[k].To == e.To {
				next = k
			}
		}
		for _, t := range timers {
			out = append(out, fireAt(i, i, t))
			if next >= 0 {
				out = append(out, fireAt(i, next+1, t))
			}
		}
	}
	return out
}

// fireAt drops the delivery at i and fires timer t at its receiver (a
// message of t's type under t's key) at position at >= i, counted in the
// original plan; the deliveries from i on are wildcards.
func fireAt(i, at int, t record.Event) edit {
	return func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		t.To, t.From = bp[i].Event.To, bp[i].Event.To
		fire := []dpor.Step{{Event: t, FP: fp.Of(t.Msg)}}
		rest := max(at, i+1)
		return wildcards(slices.Concat(bp[:i], bp[i+1:rest], fire, bp[rest:]), i)
	}
}
