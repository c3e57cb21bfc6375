package step

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/record"
)

// execution is the Session over package record's schedule driver: a fixed
// list of events that replays exactly, and one driver that follows it to
// the step asked for. Going forward takes the steps in between; going back
// re-executes the run from the start (record.Driver.Rewind): a Sim cannot
// be copied, but a run is a deterministic function of its setup and its
// events, and re-executing a 2,000-event trace takes a few milliseconds
// (see BenchmarkStepBack).
type execution struct {
	setup  record.Setup
	header record.Header
	events []record.Event
	d      *record.Driver
	// points caches the points already shown (a Point is never changed
	// once made), so that going back to a step seen before is free.
	points map[int]*Point
}

// How points are kept: a step back to a step not seen yet re-executes the
// run to backBatch steps before it and keeps the points of those steps on
// the way, so that the next steps back are free too; at most maxPoints
// points are kept.
const (
	backBatch = 8
	maxPoints = 4096
)

// Open returns the execution of trace t of system sys. It checks that the
// trace replays exactly to its end (or to the point where a handler
// panicked) and finds where it breaks the invariant.
//
// With loose set (the trace is run under options other than those it was
// recorded with, after a fix for example), the trace is followed the way a
// what-if follows the rest of a schedule instead: a delivery step stands
// for the matching pending message, a step nothing matches is skipped, and
// the execution is what the run did, to the end of the trace or to its
// first violation.
func Open(ctx context.Context, sys *record.System, t *record.Trace, loose bool) (Session, error) {
	setup := t.Setup(sys)
	if _, err := sys.Resolve(setup.Options); err != nil {
		return nil, err
	}
	if loose {
		return openLoose(ctx, setup, t)
	}
	x := &execution{setup: setup, header: t.Header, events: slices.Clone(t.Events)}
	x.header.Violation = nil
	d, err := record.NewDriver(setup, x.events, record.Follow{})
	if err != nil {
		return nil, err
	}
	for {
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) {
			break
		}
		if err != nil {
			return nil, err
		}
		halted := d.Sim().Halted() != nil // the driver calls it a divergence too
		if o.Divergence != nil && !halted {
			return nil, fmt.Errorf("the trace does not replay: %w", o.Divergence)
		}
		if o.Violation != nil && x.header.Violation == nil {
			x.header.Violation = o.Violation
		}
		if halted {
			// A handler panicked: the run cannot go on, and the
			// trace's later events (if any) can never happen.
			x.events = x.events[:o.Event+1]
			break
		}
	}
	x.header.EventCount = len(x.events)
	x.d = d
	return x, nil
}

// rewind moves the driver back to just after the first m events. A run
// halted by a panic cannot be rewound (the driver refuses any call on
// it): it is replaced by a fresh driver instead.
func (x *execution) rewind(ctx context.Context, m int) error {
	if x.d.Sim().Halted() != nil {
		d, err := record.NewDriver(x.setup, x.events, record.Follow{})
		if err != nil {
			return err
		}
		x.d = d
	}
	if len(x.d.Sim().Events()) > m {
		return x.d.Rewind(ctx, m)
	}
	return nil
}

// openLoose follows t loosely (record.MatchType) to its end or its first
// violation.
func openLoose(ctx context.Context, setup record.Setup, t *record.Trace) (Session, error) {
	d, err := record.NewDriver(setup, t.Events, record.Follow{Loose: record.MatchType})
	if err != nil {
		return nil, err
	}
	if _, err := follow(ctx, d, &Outcome{}, nil); err != nil {
		return nil, err
	}
	return done(d, setup, t.Header.Note)
}

func (x *execution) Header() record.Header    { return x.header }
func (x *execution) Len() int                 { return len(x.events) }
func (x *execution) Event(i int) record.Event { return x.events[i] }

// Trace returns a copy of the execution as a trace.
func (x *execution) Trace() *record.Trace {
	t := &record.Trace{Header: x.header, Events: slices.Clone(x.events)}
	t.Header.Options = slices.Clone(x.header.Options)
	if v := x.header.Violation; v != nil {
		vv := *v
		t.Header.Violation = &vv
	}
	t.Recount()
	t.Header.EventCount = len(t.Events)
	return t
}

// At re-creates the run at step k: it moves the driver to just before
// event k (forward from where it is, or back by re-executing), captures
// the actors' states, takes step k and captures them again.
func (x *execution) At(ctx context.Context, k int) (*Point, error) {
	if k < 0 || k >= len(x.events) {
		return nil, fmt.Errorf("no step %d (steps 0 to %d)", k, len(x.events)-1)
	}
	if p, ok := x.points[k]; ok {
		return p, nil
	}
	from := k
	if len(x.d.Sim().Events()) > k { // going back: keep the steps before too
		from = max(k-backBatch, 0)
	}
	if err := x.rewind(ctx, from); err != nil {
		return nil, err
	}
	for len(x.d.Sim().Events()) < from {
		if _, err := x.take(ctx); err != nil {
			return nil, err
		}
	}
	before := capture(x.d.Sim())
	var p *Point
	for j := from; j <= k; j++ {
		p = &Point{Step: j, Event: x.events[j], Before: before}
		o, err := x.take(ctx)
		if err != nil {
			return nil, err
		}
		p.After = capture(x.d.Sim())
		p.Pending = pending(x.d.Sim())
		p.Check = o.Violation
		x.keep(p)
		before = p.After
	}
	return p, nil
}

func (x *execution) keep(p *Point) {
	if x.points == nil || len(x.points) >= maxPoints {
		x.points = map[int]*Point{}
	}
	x.points[p.Step] = p
}

// take executes the next event of the execution, which must replay.
func (x *execution) take(ctx context.Context) (record.Outcome, error) {
	o, err := x.d.Next(ctx)
	if err != nil {
		return o, err
	}
	if o.Divergence != nil && x.d.Sim().Halted() == nil {
		return o, fmt.Errorf("the execution does not replay (is the system deterministic?): %w", o.Divergence)
	}
	return o, nil
}

// WhatIf follows steps 0..k exactly, makes the change, then follows the
// rest of the execution loosely (record.Driver: a delivery step stands for
// the pending message with the same sender, receiver and contents, else
// the newest of its type; a step nothing matches is skipped), until the
// first violation or the end of the schedule.
func (x *execution) WhatIf(ctx context.Context, k int, c Change) (Session, *Outcome, error) {
	if k < 0 || k >= len(x.events) {
		return nil, nil, fmt.Errorf("no step %d", k)
	}
	d, err := record.NewDriver(x.setup, x.events, record.Follow{})
	if err != nil {
		return nil, nil, err
	}
	for range k + 1 {
		if _, err := d.Next(ctx); err != nil {
			return nil, nil, err
		}
	}
	out := &Outcome{Change: c, At: -1}
	var o record.Outcome
	switch {
	case c.Drop != 0:
		if _, ok := d.Sim().Pending(c.Drop); !ok {
			return nil, nil, fmt.Errorf("message #%d is not pending at step %d", c.Drop, k)
		}
		d.Drop(c.Drop)
	case c.Event.Kind == record.Deliver:
		o, err = d.Deliver(ctx, c.Event.ID)
	case c.Event.Kind != 0:
		o, err = d.Apply(ctx, c.Event)
	default:
		return nil, nil, errors.New("empty change")
	}
	if err != nil {
		return nil, nil, err
	}
	if o.Event >= 0 && c.Drop == 0 {
		out.At = o.Event
	}
	v, err := follow(ctx, d, out, o.Violation)
	if err != nil {
		return nil, nil, err
	}
	out.Violation = v
	nx, err := done(d, x.setup, x.header.Note)
	if err != nil {
		return nil, nil, err
	}
	return nx, out, nil
}

// follow takes the rest of d's schedule until the first violation (v, if
// the step before found one already) or the end, counting in out the
// steps that still applied and those that were skipped.
func follow(ctx context.Context, d *record.Driver, out *Outcome, v *record.Violation) (*record.Violation, error) {
	if v == nil {
		skipped, followed, err := FollowSchedule(ctx, d, func(o record.Outcome) bool {
			v = o.Violation
			return v == nil
		})
		out.Skipped += skipped
		out.Followed += followed
		if err != nil {
			return nil, err
		}
	}
	if v == nil {
		v = d.Sim().Halted()
	}
	return v, nil
}

// FollowSchedule advances d along its schedule, calling visit after every step,
// until the run halts, the schedule ends or visit returns false. An
// external event the run rejects is skipped. It returns how many of the
// schedule's events were skipped (rejected, or absent from the run) and
// how many were followed.
func FollowSchedule(ctx context.Context, d *record.Driver, visit func(record.Outcome) bool) (skipped, followed int, err error) {
	for d.Sim().Halted() == nil {
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) {
			break
		}
		if err != nil {
			return skipped, followed, err
		}
		switch {
		case o.Divergence != nil && d.Sim().Halted() == nil: // an external event the run rejects
			d.Skip()
			skipped++
		case o.Skipped:
			skipped++
		default:
			followed++
		}
		if !visit(o) {
			break
		}
	}
	return skipped, followed, nil
}

// done turns what driver d executed into an execution.
func done(d *record.Driver, setup record.Setup, note string) (*execution, error) {
	t := d.Sim().Trace(d.Violation())
	x := &execution{setup: setup, header: t.Header, events: slices.Clone(t.Events)}
	x.header.Note = note
	var err error
	if x.d, err = record.NewDriver(setup, x.events, record.Follow{}); err != nil {
		return nil, err
	}
	return x, nil
}

// capture renders every actor's state.
func capture(sim *record.Sim) []State {
	v := sim.View()
	out := make([]State, len(sim.Members()))
	for i, id := range sim.Members() {
		out[i] = Capture(id, v.Actor(id))
	}
	return out
}

// pending lists the messages in flight, marking the deliverable ones and,
// under FIFO, the message each waits behind.
func pending(sim *record.Sim) []Pending {
	type link struct{ from, to record.ActorID }
	last := map[link]record.MsgID{}
	fifo := sim.Semantics() == record.FIFO
	var out []Pending
	for _, p := range sim.InFlight() {
		q := Pending{Pending: p, Deliverable: sim.Deliverable(p.ID)}
		if fifo && p.Timer == "" {
			l := link{p.From, p.To}
			q.Behind = last[l]
			last[l] = p.ID
		}
		out = append(out, q)
	}
	return out
}
