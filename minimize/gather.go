package minimize

import (
	"context"
	"reflect"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/perm"
	"github.com/demi-project/demi/record"
)

// Gather moves make one round do what two rounds did (docs/minimization.md, "The moves"). A gather move, for a timer
// firing i at actor x after which x handles an external message (first delivered at d), a later external send k of
// that type delivered after d (to y), and another member v (the "late" member), builds the plan:
//
//   - the trace up to d, without v's start unit (startUnit) and without the deliveries from or to v;
//   - v's start unit, moved here (or a copy of another started member's);
//   - k, sent to x, and its delivery to x;
//   - the deliveries of the causal cone of k's delivery (no timers), x and y swapped, each sent by x preceded by a copy to v.
//
// The rest is left out; the deliveries from v's old start on are wildcards. The plan is also tried
// relabelled by every symmetry of it, so that the roles can land on the actors the violation names.

// gatherPlan is one gather move's plan before relabelling, wildcards from wild.
type gatherPlan struct {
	events []record.Event
	wild   int
}

// gatherEdits lists the gather moves of base (gatherPlans), each relabelled
// by every symmetry of it (gatherPerms), then the stand-in moves.
func (m *minimizer) gatherEdits(base *record.Trace) []edit {
	events, members := base.Events, m.sys.Members(m.resolved)
	var out []edit
	for _, g := range gatherPlans(events, members) {
		for _, p := range m.gatherPerms(g.events, members) {
			out = append(out, func(fp *fingerprint.Fingerprinter, _ dpor.Plan) dpor.Plan {
				events := g.events
				if p != nil {
					events = m.sys.Symmetry.Relabel(events, p)
				}
				return dpor.FromEvents(fp, events).Wildcards(g.wild)
			})
		}
	}
	return append(out, m.standIns(events, members)...)
}

// standIns lists every exchange of two members applied to the contents of the external messages only, when it
// changes one: the configuration changes under the same run (an outsider takes a member's place).
func (m *minimizer) standIns(events []record.Event, members []record.ActorID) []edit {
	sym := m.sys.Symmetry
	if sym == nil {
		return nil
	}
	var out []edit
	for i, a := range members {
		for _, b := range members[i+1:] {
			p := record.Perm{a: b, b: a}
			ev, changed := slices.Clone(events), false
			for k, e := range events {
				if e.From == record.External && e.Msg != nil {
					ev[k].Msg = sym.Message(e.Msg, p)
					changed = changed || !reflect.DeepEqual(ev[k].Msg, e.Msg)
				}
			}
			if changed {
				out = append(out, func(fp *fingerprint.Fingerprinter, _ dpor.Plan) dpor.Plan { return dpor.FromEvents(fp, ev) })
			}
		}
	}
	return out
}

// gatherPlans lists the gather plans of the rounds as they are, then of
// each round first handed over to every other started actor (swapRound).
func gatherPlans(events []record.Event, members []record.ActorID) []gatherPlan {
	started := startedActors(events)
	late := slices.Clone(started)
	for _, a := range members {
		if !slices.Contains(late, a) {
			late = append(late, a)
		}
	}
	var out, handed []gatherPlan
	bp := make(dpor.Plan, len(events)) // the trace as a plan for swapRound (no fingerprints needed)
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
			if a != e.To {
				ev := swapRound(i, sends, e.To, a, fullRound)(nil, bp).Events() // swapRound clones bp
				handed = append(handed, roundPlans(ev, started, late, i, sends, a, i)...)
			}
		}
	}
	return append(out, handed...)
}

// roundPlans lists the gather plans of the round of the timer at i at x:
// every later send of the type of sends[0], with every late member.
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

// deliveryOf returns the index after after of the delivery of send s, or -1.
func deliveryOf(events []record.Event, s, after int) int {
	for k := after + 1; k < len(events); k++ {
		if f := events[k]; f.Kind == record.Deliver && f.Timer == "" && f.From == record.External && f.Cause == s {
			return k
		}
	}
	return -1
}

// startUnit returns the sorted indices of v's first start and the external
// sends to v before before, with their deliveries; nil when v has no start.
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

// gatherPlanOf builds the plan of one gather move (see the top); false when v has no start unit.
func gatherPlanOf(events []record.Event, started []record.ActorID, i, d, k, dk int, x, v record.ActorID, wildFrom int) (gatherPlan, bool) {
	from := v
	if !slices.Contains(started, v) {
		from = ""
		if i := slices.IndexFunc(started, func(a record.ActorID) bool { return a != x }); i >= 0 {
			from = started[i]
		}
	}
	idx := startUnit(events, from, d)
	if idx == nil {
		return gatherPlan{}, false
	}
	var unit []record.Event
	skip := map[int]bool{k: true, dk: true}
	wildFrom = min(wildFrom, d+1)
	if from == v {
		wildFrom = min(wildFrom, idx[0])
	}
	for _, j := range idx {
		e := events[j]
		switch {
		case j == k || j == dk:
			continue
		case from == v:
			skip[j] = true
		case e.Kind == record.Start:
			e.Actor = v
		default:
			e.To = v
		}
		unit = append(unit, e)
	}
	var p []record.Event
	wild := 0 // the events of p from before wildFrom
	for j := 0; j <= d; j++ {
		e := events[j]
		if skip[j] || e.Kind == record.Deliver && (e.To == v || e.From == v) {
			continue
		}
		if j < wildFrom {
			wild++
		}
		p = append(p, e)
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

// gatherPerms returns the identity (nil), then every other permutation of
// members that is a symmetry of events (none beyond the limit of members).
func (m *minimizer) gatherPerms(events []record.Event, members []record.ActorID) []record.Perm {
	out := []record.Perm{nil}
	sym := m.sys.Symmetry
	if sym == nil || len(members) > m.limitsOf(StageGather).members {
		return out
	}
	for _, order := range perm.Orders(len(members))[1:] { // the identity is first
		p := record.Perm{}
		for i, k := range order {
			p[members[i]] = members[k]
		}
		if sym.Holds(m.resolved, events, p) {
			out = append(out, p)
		}
	}
	return out
}

// gathers reports whether the best trace has gather moves: every plan has
// one (the identity), so no symmetry check is needed.
func (m *minimizer) gathers(context.Context) bool {
	best := m.snapshotBest()
	if best.Header.Deliveries > m.limitsOf(StageGather).deliveries {
		return false // its plans and their symmetries grow with the trace, outside the step count
	}
	members := m.sys.Members(m.resolved)
	return len(gatherPlans(best.Events, members)) > 0 || len(m.standIns(best.Events, members)) > 0
}
