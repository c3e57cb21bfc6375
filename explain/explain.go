// Package explain says why each event of a minimized trace is there. For
// every event it runs the trace without that event, the rest followed the
// way demi check follows a trace after a change (a delivery step stands
// for the pending message of the same sender, receiver and type; a step
// nothing matches is skipped), and reports whether the trace's violation is
// still reached and the first actor state that differs from the original
// run:
//
//	step 12 timer election fires at raft-2: ElectionTimeout{}
//	        without it raft-2 never has role=candidate; no violation
//
// An event that changes no actor's state and whose messages are never
// delivered can still be needed: handling it advanced its actor's random
// draws, so everything the actor draws later differs. Such an event is
// marked as changing only random draws.
//
// No minimizer of the field explains its result; a minimal trace keeps
// events that look unneeded (an early timer whose message is never
// delivered), and this is the answer to "why is this here?".
package explain

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/step"
	"github.com/demi-project/demi/record"
)

// Line is what happens without one event of the trace.
type Line struct {
	// Step is the event's index in the trace, Event the event.
	Step  int
	Event record.Event
	// Reached is set when the run without the event still reaches the
	// trace's violation, after step At of the schedule.
	Reached bool
	At      int
	// Other is another violation the run reached first, if any.
	Other *record.Violation
	// Diff is the first actor state that differs from the original run's
	// (nil: none differs at any step).
	Diff *Diff
	// OnlyRandom is set when the event changed no actor's state and none
	// of its messages is delivered later, but its actor's random source
	// moved on: without it, only the actor's later random draws differ.
	OnlyRandom bool
	// Skipped counts the later steps of the schedule that no longer
	// applied (nothing matched them) in the run without the event.
	Skipped int
}

// Diff is one actor's field that differs between the original run and the
// run without an event, at the first step of the schedule where any does.
type Diff struct {
	Step  int
	Actor record.ActorID
	// Field is the field's name ("" when the difference is whether the
	// actor runs at all); Want is its value in the original run, Got in
	// the run without the event.
	Field     string
	Want, Got string
	// WantRunning and GotRunning say whether the actor runs, in the
	// original run and in the other one.
	WantRunning, GotRunning bool
	// Never is set when the run without the event never has the original's
	// value (or never runs the actor) from Step on.
	Never bool
	// More names the actor's other fields that differ at Step.
	More []string
}

// MaxEvents is the longest trace Run explains: it runs the trace once per
// event and compares every actor's state at every step, so the work grows
// with the square of the length. Minimize a longer trace first.
const MaxEvents = 1000

// Run explains every event of trace t of system sys. The trace must replay
// exactly and record a violation.
func Run(ctx context.Context, sys *record.System, t *record.Trace) ([]Line, error) {
	want := t.Header.Violation
	if want == nil {
		return nil, errors.New("the trace records no violation: there is nothing to explain")
	}
	if n := len(t.Events); n > MaxEvents {
		return nil, fmt.Errorf("the trace has %d events; explain runs it once per event and takes at most %d (minimize it first)", n, MaxEvents)
	}
	setup := t.Setup(sys)
	if _, err := sys.Resolve(setup.Options); err != nil {
		return nil, err
	}
	orig, err := original(ctx, setup, t)
	if err != nil {
		return nil, err
	}
	lines := make([]Line, len(orig.events))
	for i := range orig.events {
		l, err := without(ctx, setup, orig, want, i)
		if err != nil {
			return nil, fmt.Errorf("without step %d: %w", i, err)
		}
		lines[i] = l
	}
	return lines, nil
}

// run is the original execution, step by step.
type run struct {
	events []record.Event
	// before is every actor's state before step 0; after[j] after step j.
	before []step.State
	after  [][]step.State
	// rand[j][a] fingerprints actor a's random source after step j
	// (randBefore before step 0).
	randBefore []uint64
	rand       [][]uint64
}

func (r *run) stateBefore(j int) []step.State {
	if j == 0 {
		return r.before
	}
	return r.after[j-1]
}

func (r *run) randAt(j int) []uint64 {
	if j == 0 {
		return r.randBefore
	}
	return r.rand[j-1]
}

// original replays t exactly, up to its violation, keeping the states.
func original(ctx context.Context, setup record.Setup, t *record.Trace) (*run, error) {
	d, err := record.NewDriver(setup, t.Events, record.Follow{})
	if err != nil {
		return nil, err
	}
	fp := fingerprint.New(nil)
	r := &run{before: capture(d.Sim()), randBefore: randState(fp, d.Sim())}
	for {
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) {
			break
		}
		if err != nil {
			return nil, err
		}
		if o.Divergence != nil && d.Sim().Halted() == nil {
			return nil, fmt.Errorf("the trace does not replay: %s", o.Divergence)
		}
		r.events = append(r.events, t.Events[len(r.after)])
		r.after = append(r.after, capture(d.Sim()))
		r.rand = append(r.rand, randState(fp, d.Sim()))
		if o.Violation != nil && o.Violation.Same(t.Header.Violation) || d.Sim().Halted() != nil {
			break
		}
	}
	return r, nil
}

// without runs the original's schedule with step i left out.
func without(ctx context.Context, setup record.Setup, orig *run, want *record.Violation, i int) (Line, error) {
	l := Line{Step: i, Event: orig.events[i], At: -1}
	l.OnlyRandom = onlyRandom(orig, i)
	d, err := record.NewDriver(setup, orig.events, record.Follow{})
	if err != nil {
		return l, err
	}
	for range i {
		if _, err := d.Next(ctx); err != nil {
			return l, err
		}
	}
	d.Skip()
	// got[k] is the state of the run without step i once the schedule is
	// taken through step i+k (got[0]: step i left out, nothing else).
	got := [][]step.State{orig.stateBefore(i)}
	if d.Pos() < len(orig.events) {
		skipped, _, err := step.FollowSchedule(ctx, d, func(o record.Outcome) bool {
			for len(got) < d.Pos()-i {
				got = append(got, capture(d.Sim()))
			}
			if v := o.Violation; v != nil {
				if v.Same(want) {
					l.Reached, l.At = true, d.Pos()-1
					return false
				}
				if l.Other == nil {
					l.Other = v
				}
			}
			return d.Pos() < len(orig.events)
		})
		l.Skipped += skipped
		if err != nil {
			return l, err
		}
	}
	if v := d.Sim().Halted(); v != nil && !l.Reached && l.Other == nil {
		l.Other = v
	}
	l.Diff = firstDiff(orig, got, i)
	return l, nil
}

// onlyRandom reports whether step i of the original run changed no actor's
// state, sent nothing that is delivered later, and moved its actor's
// random source.
func onlyRandom(orig *run, i int) bool {
	before, after := orig.stateBefore(i), orig.after[i]
	for a := range after {
		if len(step.Changed(before[a], after[a])) > 0 {
			return false
		}
	}
	for _, e := range orig.events[i+1:] {
		if e.Kind == record.Deliver && e.Cause == i {
			return false
		}
	}
	rb, ra := orig.randAt(i), orig.rand[i]
	return !slices.Equal(rb, ra)
}

// firstDiff compares got (the run without step i: got[k] once the
// schedule is taken through step i+k, step i left out) with the original
// run after the same steps, and returns the first actor field that
// differs.
func firstDiff(orig *run, got [][]step.State, i int) *Diff {
	for k := 0; k < len(got) && i+k < len(orig.after); k++ {
		want := orig.after[i+k]
		for a := range want {
			df := diffState(want[a], got[k][a])
			if df == nil {
				continue
			}
			df.Step = i + k
			df.Never = never(*df, got[k:], a)
			return df
		}
	}
	return nil
}

// diffState returns the first difference between two states of one actor
// (nil if none), in field order.
func diffState(want, got step.State) *Diff {
	d := &Diff{Actor: want.Actor, WantRunning: want.Running, GotRunning: got.Running}
	if want.Running != got.Running {
		return d
	}
	type fieldDiff struct{ name, want, got string }
	var diffs []fieldDiff
	for _, f := range want.Fields {
		if g, ok := got.Field(f.Name); !ok {
			diffs = append(diffs, fieldDiff{f.Name, f.Short, ""})
		} else if g.Full != f.Full {
			diffs = append(diffs, fieldDiff{f.Name, f.Short, g.Short})
		}
	}
	for _, g := range got.Fields {
		if _, ok := want.Field(g.Name); !ok {
			diffs = append(diffs, fieldDiff{g.Name, "", g.Short})
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	// Say first what the original run has that this one lacks: the first
	// field whose original value is not empty.
	first := 0
	for k, f := range diffs {
		if !empty(f.want) {
			first = k
			break
		}
	}
	d.Field, d.Want, d.Got = diffs[first].name, diffs[first].want, diffs[first].got
	for k, f := range diffs {
		if k != first {
			d.More = append(d.More, f.name)
		}
	}
	return d
}

// empty reports whether a rendered value is a zero value: nothing, "",
// 0, false, an empty collection.
func empty(v string) bool {
	switch v {
	case "", `""`, "0", "false", "[]", "map[]", "{}", "<nil>":
		return true
	}
	return false
}

// never reports whether no state of later (from the difference's step
// on) has the original's value of the differing field of actor a.
func never(df Diff, later [][]step.State, a int) bool {
	for _, states := range later {
		st := states[a]
		if df.Field == "" {
			if st.Running == df.WantRunning {
				return false
			}
			continue
		}
		if f, ok := st.Field(df.Field); ok && st.Running && f.Short == df.Want {
			return false
		}
	}
	return true
}

func capture(sim *record.Sim) []step.State {
	v := sim.View()
	out := make([]step.State, len(sim.Members()))
	for i, id := range sim.Members() {
		out[i] = step.Capture(id, v.Actor(id))
	}
	return out
}

// randState fingerprints every actor's random source (0: not drawn from).
func randState(fp *fingerprint.Fingerprinter, sim *record.Sim) []uint64 {
	v := sim.View()
	out := make([]uint64, len(sim.Members()))
	for i, id := range sim.Members() {
		if r := v.StateOf(id).Rand; r != nil {
			out[i] = fp.Of(r).Full
		}
	}
	return out
}
