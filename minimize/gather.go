package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/perm"
	"github.com/demi-project/demi/record"
)

// Gather moves (the gather pass) escape a local minimum in which two
// rounds do what one round could: an actor's round (a timer firing and the
// external messages the actor then handles, in the role the round gave it)
// takes one request, a later round takes a second request of the same
// type, and a third actor that must miss the first round's effects is
// taken out of it by a detour because it was started from the beginning.
// Every piece of the detour is needed by the rest, so no removal or single
// move undoes it: it needs the second request sent to the first round's
// actor and the third actor's start moved after the first request, at
// once.
//
// A gather move, for a timer firing i at actor x after which x handles an
// external message (the first such delivery, d), a later external send k
// of a message of the same type delivered after d (to any actor y), and
// another member v of the run (the "late" member), builds the plan:
//
//   - the trace up to d, without v's start unit (its start and the
//     external messages sent to it before d, with their deliveries) and
//     without the deliveries from or to v;
//   - v's start unit, moved here; a member the trace never starts gets
//     an inserted one, a copy of the first other started member's unit
//     (its start and configuration) with v in that member's place;
//   - k, sent to x, and its delivery to x;
//   - the deliveries of the causal cone of k's delivery (timer firings
//     left out: they start rounds of their own), with x and y trading
//     places, each one sent by x preceded by a copy of it to v.
//
// The rest of the trace is left out: the gathered round must reach the
// violation itself. The deliveries from v's old start on are wildcards.
// The late member and the roles the move gives x, v and the other actors
// are not the ones the target violation names on every trace: the
// one-leader route of a trace whose first leader the violation does not
// name breaks the same invariant between other actors. So for systems
// that declare interchangeable actors (record.Symmetry) the plan is also
// tried relabelled by every permutation of the members that is a
// symmetry of it (Symmetry.Holds), in the order of the permutations (the
// identity first): the relabelled plan runs the same execution with the
// roles exchanged, and one of them breaks the target's pair. Each plan is
// checked and followed by a descent like every move (reorder.go); the first that ends smaller than the best trace replaces
// it, and the moves of the new best trace are tried, until none improves
// it. The moves are a fixed list with fixed checks, so the result does
// not depend on Workers.

// gatherPlan is the plan of one gather move before relabelling: the
// events, and the index from which its deliveries are wildcards.
type gatherPlan struct {
	events []record.Event
	wild   int
}

// gatherEdits lists the gather moves of events, in a fixed order: for
// every timer firing in trace order after which its actor handles an
// external message, every later external send of a message of that
// message's type delivered after it, in trace order, and every other
// member (those the trace starts, in the order of their starts, then
// those it never starts, in members' order), the plan relabelled by every
// symmetry of it, the identity first.
func (m *minimizer) gatherEdits(events []record.Event) []edit {
	members := m.sys.Members(m.resolved)
	var out []edit
	for _, g := range gatherPlans(events, members) {
		for _, p := range m.gatherPerms(g.events, members) {
			out = append(out, gatherMove(m.sys.Symmetry, g, p))
		}
	}
	return out
}

// gatherPlans lists the plans of the gather moves of events (see
// gatherEdits), before relabelling: those of the rounds as they are, then
// those of each round handed over to every other started actor first (in
// the order of the starts; handover.go's full form: the timer fires at
// the other actor, which handles the round's external messages, and the
// two trade places in the round's cones).
func gatherPlans(events []record.Event, members []record.ActorID) []gatherPlan {
	started := startedActors(events)
	late := slices.Clone(started)
	for _, a := range members {
		if !slices.Contains(late, a) {
			late = append(late, a)
		}
	}
	var out, handed []gatherPlan
	// The trace as a plan for swapRound, which reads only the events (no
	// fingerprints) and returns a copy: built once for every handover.
	bp := make(dpor.Plan, len(events))
	for k, f := range events {
		bp[k].Event = f
	}
	for i, e := range events {
		if e.Kind != record.Deliver || e.Timer == "" {
			continue
		}
		sends := handedSends(events, i) // handover.go
		if len(sends) == 0 {
			continue
		}
		out = append(out, roundPlans(events, started, late, i, sends, e.To, len(events))...)
		for _, a := range started {
			if a == e.To {
				continue
			}
			ev := swapRound(i, sends, e.To, a, fullRound)(nil, bp).Events() // swapRound clones bp
			handed = append(handed, roundPlans(ev, started, late, i, sends, a, i)...)
		}
	}
	return append(out, handed...)
}

// roundPlans lists the plans of the gather moves of the round of the
// timer at i, whose actor x handles the external messages of the send
// events sends: every later send of a message of the first one's type
// delivered after it, in trace order, with every late member; the
// deliveries from index wild on (and from the late member's old start
// on) are wildcards.
func roundPlans(events []record.Event, started, late []record.ActorID, i int, sends []int, x record.ActorID, wild int) []gatherPlan {
	var out []gatherPlan
	d := deliveryOf(events, sends[0], i)
	typ := record.TypeName(events[sends[0]].Msg)
	for k, s := range events {
		if s.Kind != record.Send || k == sends[0] || s.Msg == nil || record.TypeName(s.Msg) != typ {
			continue
		}
		dk := deliveryOf(events, k, d)
		if dk < 0 {
			continue
		}
		for _, v := range late {
			if v == x {
				continue
			}
			if g, ok := gatherPlanOf(events, started, i, d, k, dk, x, v, wild); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

// deliveryOf returns the index of the delivery of the message of the send
// event at s, after index after, or -1.
func deliveryOf(events []record.Event, s, after int) int {
	for k := after + 1; k < len(events); k++ {
		if f := events[k]; f.Kind == record.Deliver && f.Timer == "" && f.From == record.External && f.Cause == s {
			return k
		}
	}
	return -1
}

// startUnit returns the indices of v's start unit in events: its first
// start and the external sends to v before index before, with their
// deliveries (wherever they are), sorted; nil when v does not start
// before before.
func startUnit(events []record.Event, v record.ActorID, before int) []int {
	start := slices.IndexFunc(events[:before], func(e record.Event) bool { return e.Kind == record.Start && e.Actor == v })
	if start < 0 {
		return nil
	}
	unit := []int{start}
	for k := 0; k < before; k++ {
		if s := events[k]; s.Kind == record.Send && s.To == v {
			if dk := deliveryOf(events, k, k); dk >= 0 {
				unit = append(unit, k, dk)
			}
		}
	}
	slices.Sort(unit)
	return unit
}

// gatherPlanOf builds the plan of one gather move (see the comment at the
// top): the round of the timer at i, whose actor x handles its first
// external message at d, takes the message of the send at k (delivered at
// dk), and v starts after d. It reports false when v's start cannot be
// moved there (v starts after d, or a member the trace never starts has
// no unit to copy).
func gatherPlanOf(events []record.Event, started []record.ActorID, i, d, k, dk int, x, v record.ActorID, wildFrom int) (gatherPlan, bool) {
	var unit []record.Event
	skip := map[int]bool{k: true, dk: true}
	wildFrom = min(wildFrom, d+1)
	if slices.Contains(started, v) {
		idx := startUnit(events, v, d)
		if idx == nil {
			return gatherPlan{}, false
		}
		for _, j := range idx {
			if j != k && j != dk {
				skip[j] = true
				unit = append(unit, events[j])
			}
		}
		wildFrom = min(wildFrom, idx[0])
	} else {
		var from record.ActorID
		for _, a := range started {
			if a != x {
				from = a
				break
			}
		}
		idx := startUnit(events, from, d)
		if idx == nil {
			return gatherPlan{}, false
		}
		for _, j := range idx {
			e := events[j]
			if j == k || j == dk {
				continue
			}
			if e.Kind == record.Start {
				e.Actor = v
			} else {
				e.To = v
			}
			unit = append(unit, e)
		}
	}
	var p []record.Event
	wild := -1
	for j := 0; j <= d; j++ {
		e := events[j]
		if skip[j] || e.Kind == record.Deliver && (e.To == v || e.From == v) {
			continue
		}
		if j >= wildFrom && wild < 0 {
			wild = len(p)
		}
		p = append(p, e)
	}
	if wild < 0 {
		wild = len(p)
	}
	p = append(p, unit...)
	send, del := events[k], events[dk]
	send.To, del.To = x, x
	p = append(p, send, del)
	y := events[dk].To
	swap := record.Perm{x: y, y: x}.Of
	in := map[int]bool{dk: true}
	for j := dk + 1; j < len(events); j++ {
		f := events[j]
		if f.Kind != record.Deliver || f.Timer != "" || !in[f.Cause] {
			continue
		}
		in[j] = true
		f.From, f.To = swap(f.From), swap(f.To)
		if f.From == x && f.To != v {
			c := f
			c.To = v
			p = append(p, c)
		}
		p = append(p, f)
	}
	return gatherPlan{events: p, wild: wild}, true
}

// gatherPerms returns the relabellings a gather plan is tried with: the
// identity first, then, for a system with a symmetry, every other
// permutation of members that holds for the plan's events, in the order
// of the permutations.
func (m *minimizer) gatherPerms(events []record.Event, members []record.ActorID) []record.Perm {
	out := []record.Perm{nil}
	sym := m.sys.Symmetry
	if sym == nil {
		return out
	}
	for _, order := range permutationsOf(len(members)) {
		if slices.IsSorted(order) {
			continue // the identity, tried first as nil
		}
		if p := permOf(members, order); sym.Holds(m.resolved, events, p) {
			out = append(out, p)
		}
	}
	return out
}

// gatherMove returns the edit of plan g relabelled by p (nil: as it is).
func gatherMove(sym *record.Symmetry, g gatherPlan, p record.Perm) edit {
	return func(fp *fingerprint.Fingerprinter, _ dpor.Plan) dpor.Plan {
		events := g.events
		if p != nil {
			events = sym.Relabel(events, p)
		}
		plan := dpor.FromEvents(fp, events)
		for k := g.wild; k < len(plan); k++ {
			if !plan[k].Event.Kind.IsExternal() {
				plan[k].Wildcard = true
			}
		}
		return plan
	}
}

// gatherStage runs the gather pass: the gather moves of the best trace,
// in order, each checked and followed by a descent (reorder.go); the
// first that ends smaller than the best trace replaces it, and the moves
// of the new best trace are tried, until none improves it.
func (m *minimizer) gatherStage(ctx context.Context) error {
	return m.reorderWith(ctx, func(base *record.Trace) []edit { return m.gatherEdits(base.Events) })
}

// permOf returns the permutation of members that maps members[i] to
// members[order[i]].
func permOf(members []record.ActorID, order []int) record.Perm {
	p := record.Perm{}
	for i, k := range order {
		p[members[i]] = members[k]
	}
	return p
}

// permutationsOf returns the permutations of 0..n-1 in lexicographic
// order, the identity first (none for n > maxPermMembers).
func permutationsOf(n int) [][]int {
	if n > maxPermMembers {
		return nil
	}
	return perm.Orders(n)
}
