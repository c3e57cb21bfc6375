package record

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// CheckAtEnd, as Follow.CheckEvery, checks the invariant only after the last
// step of the schedule (and whenever a handler panicked).
const CheckAtEnd = -1

// ErrScheduleEnd is returned by Driver.Next when every step of the
// schedule has been taken.
var ErrScheduleEnd = errors.New("end of the schedule")

// Follow says how a Driver follows its schedule. The zero value follows it
// exactly, checks the invariant after every event and looks for no
// particular violation.
type Follow struct {
	// Loose, when set, matches every delivery step with this rule instead
	// of exactly (see Matcher); steps nothing matches are skipped, and
	// external sends are not held to their recorded message IDs. Nil:
	// exact until the run leaves the schedule (Deliver, Apply, Skip,
	// Seek, Drop), MatchType after.
	Loose Matcher
	// Want is the violation looked for: Run stops after the first step at
	// which the invariant reports a violation Same as Want.
	Want *Violation
	// Also lists other violations Run stops at as at Want (its images
	// under a symmetry, say); the Driver's Violation is then the one seen.
	Also []*Violation
	// CheckEvery is how often the invariant is checked: 0 or 1 after
	// every event; N > 1 after every N-th event and after the schedule's
	// last step; CheckAtEnd only after the last step. A panicking handler
	// is noticed at once whatever the setting.
	CheckEvery int
	// Observe, when set, is called after every step (executed, skipped or
	// off the schedule), before the invariant is checked; returning false
	// stops Run without checking.
	Observe func(sim *Sim, o *Outcome) bool
	// Wait makes the Driver wait for the message of a delivery step that
	// is unignorable (see Unignorable) when it is missing, delivering
	// other messages (at most WaitLimit of them, default
	// DefaultWaitLimit), rather than report a divergence (exact) or skip
	// the step (loose). Package replay sets it.
	Wait      bool
	WaitLimit int
}

// Outcome is what one step did.
type Outcome struct {
	// Step is the index of the schedule step taken, or -1 for a decision
	// off the schedule (Driver.Deliver, Driver.Apply).
	Step int
	// Event is the index of the executed event in the Sim's event log, or
	// -1 when nothing was executed (a skipped step, a divergence).
	Event int
	// Skipped is set for a delivery step that no deliverable message
	// matched (loose matching only), or whose message was dropped.
	Skipped bool
	// Delivered is the message delivered, for a delivery.
	Delivered Pending
	// Violation is what the invariant check after the step found (nil when
	// it holds or was not checked); Found reports that it is the one
	// wanted.
	Violation *Violation
	Found     bool
	// Divergence is set when the step could not be taken.
	Divergence *Divergence
	// Waited is the number of deliveries made off the schedule, before
	// this step, while waiting for its unignorable message (see
	// Unignorable).
	Waited int
}

// Driver takes a Sim through a schedule, one step at a time. A schedule is
// a sequence of decisions, written as Events: apply this external event,
// deliver this pending message (or fire this timer). The Driver is the one
// place where demi follows schedules: exact replay, the round view, the minimizer's
// checks and the optimum search all follow schedules through it, and the
// step-through replay steps forwards, backwards and off the schedule with
// it.
//
// The rules, once for all:
//
//   - Matching. An external step is applied as it is. A delivery step is
//     matched exactly by default: the message pending under the step's ID
//     must have the same sender, receiver, timer key and contents
//     (SameMessage), and be deliverable. With a loose Matcher (Follow.Loose,
//     and automatically once the run has left the schedule), the step
//     stands for whichever deliverable message the Matcher picks, and a step
//     that nothing matches is skipped.
//   - Divergence. A step that cannot be taken (exact mismatch, a message
//     not deliverable, an external event the run rejects) is reported as a
//     Divergence, with the fields that differ, and not executed; Run stops
//     there.
//   - Unignorable messages. With Follow.Wait, a delivery step of a
//     message that implements Unignorable (a bootstrap message) is not
//     skipped or reported as a divergence when the message is missing:
//     the Driver waits for it, delivering other messages and detecting
//     timers that repeat in a cycle, and reports a divergence only when
//     it cannot come (see Unignorable).
//   - Invariant. After every step (or every Follow.CheckEvery steps, and
//     after the last one), the system's invariant is checked. A violation
//     that is the same as Follow.Want (Violation.Same) stops Run; a panic in
//     a handler always stops it, since the run cannot go on.
//   - Observation. Follow.Observe is called after every step, before the
//     invariant check, and may stop the run.
//   - Cancellation. The context is consulted before every step, at the cost
//     of a non-blocking channel receive, so cancellation is honoured within
//     one handler call at any schedule length.
//
// Stepping backwards re-executes the run from the start (see Back): a run
// is a deterministic function of its Setup and its events. (Sim.Fork copies
// a run instead, for searches that branch at every state.)
//
// Follow a trace exactly:
//
//	d, err := record.NewDriver(t.Setup(sys), t.Events, record.Follow{Want: t.Header.Violation})
//	err = d.Run(ctx)
//	d.Found(), d.Violation(), d.Divergence()
//
// Step, look, step back:
//
//	o, err := d.Next(ctx)     // one step; o says what it did
//	err = d.Back(ctx, 1)      // undo the last event (re-executes the rest)
//
// What if: take a decision off the schedule, then follow the rest of the
// schedule where it still applies (loosely, by MatchType):
//
//	d.Deliver(ctx, otherID)               // another pending message
//	d.Apply(ctx, record.KillEvent("n2"))  // crash, restart, send, partition
//	d.Skip()                              // leave out the next step
//	d.Drop(id)                            // never deliver message id
//	err = d.Run(ctx)
//	t := d.Sim().Trace(d.Violation())     // the new run, exact and replayable
//
// A Driver is not safe for concurrent use.
type Driver struct {
	setup Setup
	plan  *simPlan // setup's system, checked once for Rewind's fresh Sims
	sim   *Sim
	sched []Event
	f     Follow
	done  <-chan struct{} // ctx.Done() of the current call

	pos   int     // the next schedule step
	trail []int32 // trail[i]: pos after event i was executed
	// left is the event count at which the run left the schedule, or -1.
	left    int
	dropped map[MsgID]int // message → event count when dropped
	since   int           // events since the last invariant check

	found, first *Violation
	div          *Divergence
	stop         bool // Observe asked to stop
}

// NewDriver starts a fresh run of setup that will follow schedule.
func NewDriver(setup Setup, schedule []Event, f Follow) (*Driver, error) {
	sim, err := setup.NewSim()
	if err != nil {
		return nil, err
	}
	sim.Reserve(len(schedule))
	return &Driver{setup: setup, plan: sim.plan, sim: sim, sched: schedule, f: f, left: -1}, nil
}

// Sim returns the run. It changes identity when Back rebuilds it.
func (d *Driver) Sim() *Sim { return d.sim }

// Setup returns how the run is set up.
func (d *Driver) Setup() Setup { return d.setup }

// Schedule returns the schedule being followed (owned by the caller that
// gave it).
func (d *Driver) Schedule() []Event { return d.sched }

// Pos returns the index of the next schedule step.
func (d *Driver) Pos() int { return d.pos }

// Left reports whether the run has left the schedule (a decision off it, a
// skipped or dropped step, a Seek), so that the rest is matched loosely.
func (d *Driver) Left() bool { return d.left >= 0 }

// Found reports whether the wanted violation occurred.
func (d *Driver) Found() bool { return d.found != nil }

// Violation returns the wanted violation if it occurred, else the first
// violation seen, else nil.
func (d *Driver) Violation() *Violation {
	if d.found != nil {
		return d.found
	}
	return d.first
}

// Divergence returns the step at which the run could not follow the
// schedule, or nil.
func (d *Driver) Divergence() *Divergence { return d.div }

// Stopped reports whether Run stopped before the end of the schedule: the
// wanted violation, a divergence, a halted run or Observe.
func (d *Driver) Stopped() bool {
	return d.found != nil || d.div != nil || d.stop || d.sim.halted != nil
}

// Run takes the schedule's steps until its end or until Stopped. It
// returns an error only when ctx ends (the Sim stays where it was).
func (d *Driver) Run(ctx context.Context) error {
	var o Outcome
	for d.pos < len(d.sched) && !d.Stopped() {
		if err := d.next(ctx, &o); err != nil {
			return err
		}
	}
	return nil
}

// Next takes the next step of the schedule. After a divergence, Next tries
// the same step again (Skip moves past it). It returns ErrScheduleEnd when
// no step is left, ErrHalted when a handler panicked, and ctx's error.
func (d *Driver) Next(ctx context.Context) (Outcome, error) {
	var o Outcome
	err := d.next(ctx, &o)
	return o, err
}

// next is Next into *o (Run reuses one Outcome: it is large to copy).
func (d *Driver) next(ctx context.Context, o *Outcome) error {
	*o = Outcome{Step: d.pos, Event: -1}
	if d.pos >= len(d.sched) {
		return ErrScheduleEnd
	}
	if err := d.enter(ctx); err != nil {
		return err
	}
	k := d.pos
	e := &d.sched[k]
	d.div = nil
	if e.Kind.IsExternal() {
		if err := d.sim.Apply(*e); err != nil {
			d.diverged(o, e, err.Error(), nil)
			return nil
		}
		o.Event = d.sim.eventCount() - 1
		if e.Kind == Send && d.exact() {
			if got := d.sim.sentID(o.Event); got != e.ID {
				d.trail = append(d.trail, int32(d.pos))
				d.diverged(o, e, fmt.Sprintf("message ID #%d", got), nil)
				return nil
			}
		}
		d.pos++
		d.after(o, true)
		return nil
	}
	var at int
	if m := d.matcher(); m != nil {
		id, ok := m(d.sim, k, e)
		if !ok && d.awaits(e) {
			return d.await(ctx, o, k, e)
		}
		if _, gone := d.dropped[id]; !ok || gone {
			o.Skipped = true
			d.pos++
			d.after(o, false)
			return nil
		}
		var why *NotPendingError
		if at, why = d.sim.deliverable(id); why != nil {
			d.diverged(o, e, why.Error(), nil)
			return nil
		}
	} else {
		at = d.sim.find(e.ID)
		if at < 0 {
			if d.awaits(e) {
				return d.await(ctx, o, k, e)
			}
			d.diverged(o, e, fmt.Sprintf("no message #%d pending", e.ID), nil)
			return nil
		}
		p := &d.sim.pend[at]
		if p.From != e.From || p.To != e.To || p.Timer != e.Timer || !SameMessage(p.Msg, e.Msg) {
			if d.awaits(e) {
				return d.await(ctx, o, k, e)
			}
			got := Event{Kind: Deliver, ID: p.ID, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer}
			d.diverged(o, e, "pending "+got.String(), deliveryDiff(e, p))
			return nil
		}
		if why := d.sim.blocked(at); why != nil {
			d.diverged(o, e, why.Error(), nil)
			return nil
		}
	}
	o.Delivered = d.sim.pend[at]
	d.sim.deliverAt(at)
	o.Event = d.sim.eventCount() - 1
	d.pos++
	d.after(o, true)
	return nil
}

// Deliver delivers pending message id now, off the schedule (a what-if, or
// a decision the caller took itself); the rest of the schedule is then
// followed loosely. The error is the Sim's (the message is not
// deliverable) or ctx's.
func (d *Driver) Deliver(ctx context.Context, id MsgID) (Outcome, error) {
	o := Outcome{Step: -1, Event: -1}
	if err := d.enter(ctx); err != nil {
		return o, err
	}
	at, why := d.sim.deliverable(id)
	if why != nil {
		return o, why
	}
	d.leave()
	o.Delivered = d.sim.pend[at]
	d.sim.deliverAt(at)
	o.Event = d.sim.eventCount() - 1
	d.after(&o, true)
	return o, nil
}

// Apply executes external event e now, off the schedule (a what-if: crash,
// restart, kill, send, partition, heal); the rest of the schedule is then
// followed loosely.
func (d *Driver) Apply(ctx context.Context, e Event) (Outcome, error) {
	o := Outcome{Step: -1, Event: -1}
	if err := d.enter(ctx); err != nil {
		return o, err
	}
	if err := d.sim.Apply(e); err != nil {
		return o, err
	}
	d.leave()
	o.Event = d.sim.eventCount() - 1
	d.after(&o, true)
	return o, nil
}

// Skip leaves out the next step of the schedule (a what-if: this delivery
// never happens); the rest is then followed loosely.
func (d *Driver) Skip() {
	if d.pos < len(d.sched) {
		d.leave()
		d.pos++
		d.div = nil
	}
}

// Seek moves to step k of the schedule without taking the steps between
// (a caller that took them itself, or a what-if that leaves them out).
// Moving anywhere but to Pos leaves the schedule.
func (d *Driver) Seek(k int) {
	k = min(max(k, 0), len(d.sched))
	if k != d.pos {
		d.leave()
		d.pos = k
		d.div = nil
	}
}

// Drop makes pending message id undeliverable by the schedule: a later step
// that matches it is skipped. The message stays in the network, so under
// FIFO it still holds back those queued behind it; the run, saved as a
// trace, replays exactly (a message never delivered needs no event).
func (d *Driver) Drop(id MsgID) {
	if d.dropped == nil {
		d.dropped = map[MsgID]int{}
	}
	if _, ok := d.dropped[id]; !ok {
		d.dropped[id] = d.sim.eventCount()
		d.leave()
	}
}

// Back undoes the last n executed events (all of them if there are fewer):
// it rebuilds the Sim from the Setup and re-executes the events before
// them, exactly. The schedule position, the decisions off the schedule,
// the drops and the violations seen return to what they were then.
func (d *Driver) Back(ctx context.Context, n int) error {
	return d.Rewind(ctx, d.sim.eventCount()-n)
}

// Rewind re-executes the run's first m events on a fresh Sim (see Back).
func (d *Driver) Rewind(ctx context.Context, m int) error {
	events := d.sim.Events()
	m = min(max(m, 0), len(events))
	if err := d.enter(ctx); err != nil {
		return err
	}
	sim, err := d.plan.newSim(d.setup.Options, d.setup.Seed)
	if err != nil {
		return err
	}
	sim.Reserve(max(len(d.sched), m))
	for i := range events[:m] {
		if i&63 == 0 {
			if err := d.cancelled(ctx); err != nil {
				return err
			}
		}
		e := &events[i]
		if e.Kind.IsExternal() {
			err = sim.Apply(*e)
		} else {
			err = sim.Deliver(e.ID)
		}
		if err != nil {
			return fmt.Errorf("stepping back: re-executing event %d (%s): %w (is the system deterministic?)", i, escape(e.String()), err)
		}
	}
	d.sim = sim
	d.trail = d.trail[:m]
	d.pos = 0
	if m > 0 {
		d.pos = int(d.trail[m-1])
	}
	if d.left >= m {
		d.left = -1
	}
	for id, at := range d.dropped {
		if at >= m {
			delete(d.dropped, id)
		}
	}
	if d.found != nil && d.found.Event >= m {
		d.found = nil
	}
	if d.first != nil && d.first.Event >= m {
		d.first = nil
	}
	d.div, d.stop, d.since = nil, false, 0
	return nil
}

// enter starts a step: it takes ctx's done channel and refuses a halted run.
func (d *Driver) enter(ctx context.Context) error {
	d.done = ctx.Done()
	if err := d.cancelled(ctx); err != nil {
		return err
	}
	if d.sim.halted != nil {
		return ErrHalted
	}
	return nil
}

func (d *Driver) cancelled(ctx context.Context) error {
	select {
	case <-d.done:
		return ctx.Err()
	default:
		return nil
	}
}

// exact reports whether delivery steps are matched exactly.
func (d *Driver) exact() bool { return d.f.Loose == nil && d.left < 0 }

// matcher returns the loose matching rule in force, or nil for exact.
func (d *Driver) matcher() Matcher {
	if d.f.Loose != nil {
		return d.f.Loose
	}
	if d.left >= 0 {
		return MatchType
	}
	return nil
}

// leave records that the run leaves the schedule here.
func (d *Driver) leave() {
	if d.left < 0 {
		d.left = d.sim.eventCount()
	}
}

// diverged records that step o could not be taken.
func (d *Driver) diverged(o *Outcome, e *Event, got string, fields []FieldDiff) {
	o.Divergence = &Divergence{Event: o.Step, Expected: escape(e.String()), Got: escape(got), Fields: fields}
	d.div = o.Divergence
}

// observe calls the observer hook; false stops the run.
func (d *Driver) observe(o *Outcome) bool {
	if d.f.Observe != nil && !d.f.Observe(d.sim, o) {
		d.stop = true
		return false
	}
	return true
}

// after finishes a step, executed or skipped: trail, observer, invariant.
func (d *Driver) after(o *Outcome, executed bool) {
	if executed {
		d.trail = append(d.trail, int32(d.pos))
		d.since++
	}
	if !d.observe(o) {
		return
	}
	every := d.f.CheckEvery
	due := executed && (every == 0 || every == 1 || every > 1 && d.since >= every) ||
		d.sim.halted != nil ||
		d.since > 0 && o.Step >= 0 && d.pos == len(d.sched) // the schedule's last step
	if !due {
		return
	}
	d.since = 0
	v := d.record(d.sim.Check())
	if v == nil {
		return
	}
	o.Violation, o.Found = v, d.f.wanted(v)
	if !o.Found && d.sim.halted != nil && d.exact() && o.Step >= 0 {
		o.Divergence = &Divergence{Event: o.Step, Expected: "the run to go on", Got: escape(v.String())}
		d.div = o.Divergence
	}
}

// wanted reports whether v is Want or one of Also.
func (f *Follow) wanted(v *Violation) bool {
	return v.Same(f.Want) || slices.ContainsFunc(f.Also, v.Same)
}

// Check checks the invariant now, outside the driver's rhythm (a state
// no step led to, such as an empty schedule's, or a display that wants the
// invariant's status), and records the violation as a step's check would.
func (d *Driver) Check() *Violation { return d.record(d.sim.Check()) }

// record notes violation v (nil: none): the wanted one, or the first seen.
func (d *Driver) record(v *Violation) *Violation {
	switch {
	case v == nil:
	case d.f.wanted(v):
		if d.found == nil {
			d.found = v
		}
	case d.first == nil:
		d.first = v
	}
	return v
}
