package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
)

// externalUnits groups the external events' indices into the units removed together: a partition
// with its heal, a wait marker with the external event before it; every other external event alone.
func externalUnits(events []record.Event) [][]int {
	var units [][]int
	unitOf := map[int]int{} // event index → unit
	for i, e := range events {
		if _, done := unitOf[i]; done || !e.Kind.IsExternal() {
			continue
		}
		switch e.Kind {
		case record.WaitQuiescence, record.WaitCondition:
			if u := len(units) - 1; u >= 0 {
				units[u] = append(units[u], i)
				unitOf[i] = u
				continue
			}
		}
		u := len(units)
		units = append(units, []int{i})
		unitOf[i] = u
		if e.Kind != record.Partition {
			continue
		}
		for j := i + 1; j < len(events); j++ { // its heal
			if _, taken := unitOf[j]; !taken && events[j].Kind == record.Heal && sameSides(e, events[j]) {
				units[u] = append(units[u], j)
				unitOf[j] = u
				break
			}
		}
	}
	for _, u := range units {
		slices.Sort(u)
	}
	return units
}

func sameSides(p, h record.Event) bool {
	same := func(a, b []record.ActorID) bool {
		return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
	}
	return same(p.A, h.A) && same(p.B, h.B) || same(p.A, h.B) && same(p.B, h.A)
}

// validExternals drops from sel the kills and restarts of actors no kept
// event started and the heals with no kept partition before them.
func validExternals(events []record.Event, sel []int) []int {
	started, cuts, out := map[record.ActorID]bool{}, 0, sel[:0:0]
	for _, i := range sel {
		e := events[i]
		switch e.Kind {
		case record.Start:
			started[e.Actor] = true
		case record.Kill, record.Restart:
			if !started[e.Actor] {
				continue
			}
		case record.Partition:
			cuts++
		case record.Heal:
			if cuts == 0 {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// planOf builds the plan of the events of bp at the sorted indices idx,
// deliveries at or after wildFrom matched by type (wildFrom < 0: none).
func planOf(bp dpor.Plan, idx []int, wildFrom int) dpor.Plan {
	p := make(dpor.Plan, 0, len(idx))
	for _, i := range idx {
		st := bp[i]
		if wildFrom >= 0 && i >= wildFrom && !st.Event.Kind.IsExternal() {
			st.Wildcard = true
		}
		p = append(p, st)
	}
	return p
}

// startedActors lists the actors events start, in order.
func startedActors(events []record.Event) (out []record.ActorID) {
	for _, e := range events {
		if e.Kind == record.Start && !slices.Contains(out, e.Actor) {
			out = append(out, e.Actor)
		}
	}
	return out
}

// leading returns the number of leading events whose kind is in.
func leading(events []record.Event, in func(record.Kind) bool) int {
	n := 0
	for n < len(events) && in(events[n].Kind) {
		n++
	}
	return n
}

// afterStarts returns the index of the first event after the leading starts.
func afterStarts(events []record.Event) int {
	return leading(events, func(k record.Kind) bool { return k == record.Start })
}

// deliveryIndices lists the indices of events' deliveries.
func deliveryIndices(events []record.Event) []int {
	return indicesOf(events, func(k record.Kind) bool { return k == record.Deliver })
}

// indicesOf lists the indices of the events whose kind is in.
func indicesOf(events []record.Event, in func(record.Kind) bool) (out []int) {
	for i, e := range events {
		if in(e.Kind) {
			out = append(out, i)
		}
	}
	return out
}

// ddminExternalsPass runs ddmin-externals: STSSched on the first call (every
// call under sts), later calls with wildcards and TFB backtracks.
func (m *minimizer) ddminExternalsPass(ctx context.Context) error {
	if m.calls[StageDdminExternals] == 1 || m.mode == dpor.STS {
		return m.ddminPass(ctx, false, dpor.STS, 1, -1)
	}
	return m.ddminPass(ctx, false, dpor.TFB, m.budgetFor(), 0)
}

// externalMessage reports whether events[d] delivers an external message whose send is in events.
func externalMessage(events []record.Event, d int) bool {
	e := events[d]
	return e.Kind == record.Deliver && e.Timer == "" && e.From == record.External &&
		e.Cause >= 0 && e.Cause < d && events[e.Cause].Kind == record.Send
}
