// Package rounds lays a trace out round by round, the way people reason
// about consensus protocols.
//
// Many protocols are communication-closed: every message belongs to a
// round (Raft: the term, with a phase per message kind), a process acts
// only on messages of its current round and drops older ones. Such an
// execution reads like a lossy synchronous one: rounds in lockstep, in each
// phase every process sends, and each process hears from a subset of the
// senders, its heard-of (HO) set. A process that hears nothing in a round
// is isolated. Messages that arrive after their receiver has moved to a
// later round are the asynchronous residue, shown apart.
//
// Message types opt in by implementing record.Rounded. Events without a
// round (timers, client commands, crashes) are shown in the round during
// which they happen. Build replays the trace to show, per round, how each
// actor's state (its Snapshot) changed.
package rounds

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/demi-project/demi/record"
)

// Delivery is one delivered message, as placed in the layout.
type Delivery struct {
	Step  int
	From  record.ActorID
	To    record.ActorID
	Msg   record.Message
	Round int
	Phase string
	// Late is set when the receiver had already reached a later round.
	Late bool
	// ReceiverRound is the receiver's round when a late message arrived.
	ReceiverRound int
}

// Phase is the deliveries of one phase of a round.
type Phase struct {
	Name       string
	Deliveries []Delivery
	// Isolated lists the members that were running while the phase took
	// place but neither sent nor received any of its delivered messages:
	// the phase read as a uniform round (the communication closure
	// paper's Theorem 5.3), whose losses are exactly the messages to and
	// from its isolated processes, and whose kernel is everyone else.
	Isolated []record.ActorID
	// running holds the members running at some delivery of the phase.
	running map[record.ActorID]bool
}

// Senders returns who sent messages in this phase, sorted.
func (p *Phase) Senders() []record.ActorID {
	var out []record.ActorID
	for _, d := range p.Deliveries {
		out = append(out, d.From)
	}
	return uniq(out)
}

// HO returns each receiver's heard-of set in this phase: whose messages it
// received, sorted.
func (p *Phase) HO() map[record.ActorID][]record.ActorID {
	ho := map[record.ActorID][]record.ActorID{}
	for _, d := range p.Deliveries {
		ho[d.To] = append(ho[d.To], d.From)
	}
	for k, v := range ho {
		ho[k] = uniq(v)
	}
	return ho
}

// Change is one field of an actor's snapshot that changed during a round.
type Change struct {
	Actor         record.ActorID
	Field         string
	Before, After string
}

// Round is everything that happened in one round.
type Round struct {
	Number int
	Phases []*Phase
	// Other lists the events of the round that carry no round: timers,
	// external events, messages of types without a round.
	Other []Step
	// Isolated lists running actors that heard no message of this round.
	Isolated []record.ActorID
	// Changes is how the actors' snapshots changed during the round.
	Changes []Change
}

// Step is an event with its index in the trace.
type Step struct {
	Index int
	Event record.Event
}

// Layout is a trace laid out in rounds.
type Layout struct {
	// Prelude is what happened before the first round-carrying delivery.
	Prelude []Step
	Rounds  []*Round
	// Residue lists late deliveries: messages delivered after their
	// receiver had moved on to a later round.
	Residue   []Delivery
	Violation *record.Violation
	// Rounded reports whether any message of the trace carried a round.
	Rounded bool
	// Members are the system's actors that the trace starts (all of them
	// when it starts none); a quorum is a majority of them.
	Members []record.ActorID
}

// Build replays t on sys exactly (a record.Driver: every delivery checked
// against the trace, the invariant after every event, stopping at the
// trace's violation) and lays it out in rounds. A trace that does not
// replay is an error.
func Build(ctx context.Context, sys *record.System, t *record.Trace) (*Layout, error) {
	return BuildProgress(ctx, sys, t, nil)
}

// BuildProgress is Build that calls progress (when not nil) with the index
// of each trace event once it is laid out, for a progress display.
func BuildProgress(ctx context.Context, sys *record.System, t *record.Trace, progress func(step int)) (*Layout, error) {
	lay := &Layout{Violation: t.Header.Violation}
	byNum := map[int]*Round{}
	actorRound := map[record.ActorID]int{}
	current := -1 // highest round seen; -1 before the first
	heard := map[int]map[record.ActorID]bool{}
	var state map[record.ActorID]map[string]string
	changes := map[int]*changeSet{}
	started := map[record.ActorID]bool{}

	round := func(n int) *Round {
		r := byNum[n]
		if r == nil {
			r = &Round{Number: n}
			byNum[n] = r
			heard[n] = map[record.ActorID]bool{}
			changes[n] = &changeSet{}
		}
		return r
	}
	// place lays out trace event i, just executed on sim.
	place := func(sim *record.Sim, o *record.Outcome) bool {
		i, e := o.Step, t.Events[o.Step]
		if progress != nil {
			progress(i)
		}
		if e.Kind == record.Start {
			started[e.Actor] = true
		}
		at := current
		if rm, ok := e.Msg.(record.Rounded); ok && e.Kind == record.Deliver {
			n, phase := rm.Round()
			lay.Rounded = true
			d := Delivery{Step: i, From: e.From, To: e.To, Msg: e.Msg, Round: n, Phase: phase}
			current = max(current, n)
			if rr, seen := actorRound[e.To]; seen && rr > n {
				d.Late, d.ReceiverRound = true, rr
				lay.Residue = append(lay.Residue, d)
				at = current // its effects show in the round its receiver was in
			} else {
				r := round(n)
				ph := phaseOf(r, phase)
				ph.Deliveries = append(ph.Deliveries, d)
				if ph.running == nil {
					ph.running = map[record.ActorID]bool{}
				}
				for _, id := range sim.Members() {
					if sim.View().Running(id) {
						ph.running[id] = true
					}
				}
				heard[n][e.To] = true
				actorRound[e.To] = max(actorRound[e.To], n)
				at = n
			}
		} else if at < 0 {
			lay.Prelude = append(lay.Prelude, Step{Index: i, Event: e})
		} else {
			round(at).Other = append(round(at).Other, Step{Index: i, Event: e})
		}
		// Messages this step sent move their sender to their round.
		for _, p := range sim.InFlight() {
			if p.Cause == o.Event {
				if rm, ok := p.Msg.(record.Rounded); ok {
					n, _ := rm.Round()
					actorRound[p.From] = max(actorRound[p.From], n)
				}
			}
		}
		// Attribute the state change of the affected actor to the round.
		if id := subject(e); id != "" {
			after := snapshot(sim, id)
			if at >= 0 {
				changes[at].add(id, state[id], after)
			}
			state[id] = after
		}
		return true
	}
	d, err := record.NewDriver(t.Setup(sys), t.Events, record.Follow{Want: t.Header.Violation, Observe: place})
	if err != nil {
		return nil, err
	}
	sim := d.Sim()
	members := sim.Members()
	state = snapshots(sim)
	if err := d.Run(ctx); err != nil {
		return nil, err
	}
	if div := d.Divergence(); div != nil {
		return nil, fmt.Errorf("trace does not replay: %w", div)
	}
	// The violation the run reached, not the one the header records: with
	// options changed a trace can replay to its end without reaching it.
	lay.Violation = d.Violation()
	for _, id := range members {
		if started[id] || len(started) == 0 {
			lay.Members = append(lay.Members, id)
		}
	}
	nums := make([]int, 0, len(byNum))
	for n := range byNum {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		r := byNum[n]
		for _, id := range members {
			if !heard[n][id] && sim.View().Running(id) {
				r.Isolated = append(r.Isolated, id)
			}
		}
		for _, ph := range r.Phases {
			in := map[record.ActorID]bool{}
			for _, d := range ph.Deliveries {
				in[d.From], in[d.To] = true, true
			}
			for _, id := range lay.Members {
				if ph.running[id] && !in[id] {
					ph.Isolated = append(ph.Isolated, id)
				}
			}
		}
		r.Changes = changes[n].list(members)
		lay.Rounds = append(lay.Rounds, r)
	}
	return lay, nil
}

// subject is the actor whose state an event changes, if any.
func subject(e record.Event) record.ActorID {
	switch e.Kind {
	case record.Deliver:
		return e.To
	case record.Start, record.Kill, record.Restart:
		return e.Actor
	}
	return ""
}

// changeSet accumulates, per actor and field, the first value before and
// the last value after the changes of one round.
type changeSet struct {
	m map[record.ActorID]map[string]*Change
}

func (c *changeSet) add(id record.ActorID, before, after map[string]string) {
	if before["running"] != after["running"] {
		// Started or stopped: the whole state appeared or vanished; say
		// just that rather than every field.
		before = map[string]string{"running": before["running"]}
		after = map[string]string{"running": after["running"]}
	}
	for k := range union(before, after) {
		if before[k] == after[k] {
			continue
		}
		if c.m == nil {
			c.m = map[record.ActorID]map[string]*Change{}
		}
		if c.m[id] == nil {
			c.m[id] = map[string]*Change{}
		}
		if ch := c.m[id][k]; ch != nil {
			ch.After = after[k]
		} else {
			c.m[id][k] = &Change{Actor: id, Field: k, Before: before[k], After: after[k]}
		}
	}
}

func (c *changeSet) list(members []record.ActorID) []Change {
	var out []Change
	for _, id := range members {
		fields := c.m[id]
		keys := make([]string, 0, len(fields))
		for k, ch := range fields {
			if ch.Before != ch.After {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, *fields[k])
		}
	}
	return out
}

func union(a, b map[string]string) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func phaseOf(r *Round, name string) *Phase {
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	p := &Phase{Name: name}
	r.Phases = append(r.Phases, p)
	return p
}

// snapshots renders every running actor's Snapshot as field → text.
func snapshots(sim *record.Sim) map[record.ActorID]map[string]string {
	out := map[record.ActorID]map[string]string{}
	for _, id := range sim.Members() {
		out[id] = snapshot(sim, id)
	}
	return out
}

// snapshot renders one actor's Snapshot as field → text.
func snapshot(sim *record.Sim, id record.ActorID) map[string]string {
	a := sim.View().Actor(id)
	if a == nil {
		return map[string]string{"running": "false"}
	}
	if s, ok := a.(record.Snapshotter); ok {
		return fields(s.Snapshot())
	}
	return map[string]string{"running": "true"}
}

// fields flattens a snapshot (a map or a struct) into field → text.
func fields(s any) map[string]string {
	out := map[string]string{"running": "true"}
	rv := reflect.ValueOf(s)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map:
		for _, k := range rv.MapKeys() {
			out[fmt.Sprint(k.Interface())] = fmt.Sprint(rv.MapIndex(k).Interface())
		}
	case reflect.Struct:
		for i := 0; i < rv.NumField(); i++ {
			if rv.Type().Field(i).IsExported() {
				out[rv.Type().Field(i).Name] = fmt.Sprint(rv.Field(i).Interface())
			}
		}
	default:
		out["state"] = fmt.Sprint(s)
	}
	return out
}

func uniq(ids []record.ActorID) []record.ActorID {
	slices.Sort(ids)
	return slices.Compact(ids)
}
