package spark

import (
	"context"
	"fmt"
	"maps"

	"github.com/demi-project/demi/record"
)

// Reference builds the hand-written reproducer of bug: a schedule written
// out event by event (externals applied, chosen pending messages
// delivered) through the runtime, ending in the same violation as the
// bug's shipped fuzz trace, with the options of its fuzz case. No
// minimizer produced them: they are the yardsticks minimization is
// measured against. docs/examples.md tells each one's story.
func Reference(ctx context.Context, bug string) (*record.Trace, error) {
	build, ok := references()[bug]
	if !ok {
		return nil, fmt.Errorf("spark: no reference reproducer for %q", bug)
	}
	opts := record.Options{bug: "true"}
	for _, c := range ShippedFuzz() {
		if c.Bug == bug {
			maps.Copy(opts, c.Opts)
		}
	}
	sim, err := record.NewSim(System(), opts, 0)
	if err != nil {
		return nil, fmt.Errorf("reference %s: %w", bug, err)
	}
	b := &builder{ctx: ctx, sim: sim}
	build(b)
	if b.err != nil {
		return nil, fmt.Errorf("reference %s: %w", bug, b.err)
	}
	v := sim.Check()
	if v == nil {
		return nil, fmt.Errorf("reference %s: the schedule ends without a violation", bug)
	}
	t := sim.Trace(v)
	t.Header.Note = "hand-built reference reproducer (examples/spark/reference.go)"
	return t, nil
}

// builder applies a schedule step by step and remembers the first error.
// Every step but the last must leave the invariant intact.
type builder struct {
	ctx  context.Context
	sim  *record.Sim
	err  error
	step int
	buf  []record.Pending
}

func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("step %d: %s", b.step, fmt.Sprintf(format, args...))
	}
}

// before checks that the previous step left no violation.
func (b *builder) before() bool {
	if b.err != nil {
		return false
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return false
	}
	if b.step > 0 {
		if v := b.sim.Check(); v != nil {
			b.fail("violation before the schedule's end: %v", v)
			return false
		}
	}
	b.step++
	return true
}

func (b *builder) apply(e record.Event) {
	if b.before() {
		if err := b.sim.Apply(e); err != nil {
			b.fail("%v", err)
		}
	}
}

// deliver delivers the first deliverable message (or timer, when timer is
// set) from → to of type T.
func deliver[T any](b *builder, from, to record.ActorID) {
	if !b.before() {
		return
	}
	b.buf = b.sim.Enabled(b.buf[:0])
	for _, p := range b.buf {
		if _, ok := p.Msg.(T); ok && p.From == from && p.To == to {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	var pending []string
	for _, p := range b.buf {
		pending = append(pending, fmt.Sprintf("%s→%s %s", p.From, p.To, record.FormatMessage(p.Msg)))
	}
	var zero T
	b.fail("no %T deliverable %s→%s (deliverable: %v)", zero, from, to, pending)
}

// submit sends the driver a job with the given preferences and delivers
// it: the driver registers the job's application with the master.
func (b *builder) submit(prefs ...record.ActorID) {
	b.apply(record.SendEvent(DriverID, SubmitJob{Prefs: prefs}))
	deliver[SubmitJob](b, record.External, DriverID)
}

func references() map[string]func(*builder) {
	const w1, x1 = record.ActorID("worker-1"), record.ActorID("exec-1")
	return map[string]func(*builder){
		// worker-1 joins; a job of two tasks, the first without preference
		// and the second preferring worker-1, gets worker-1's executor,
		// which registers with the driver: the scheduler tries the two
		// tasks together at the NODE_LOCAL level and launches the first,
		// NO_PREF, while the NODE_LOCAL one waits.
		Bug2294: func(b *builder) {
			b.apply(record.StartEvent(MasterID))
			b.apply(record.StartEvent(DriverID))
			b.apply(record.StartEvent(x1))
			b.apply(record.StartEvent(w1))
			deliver[RegisterWorker](b, w1, MasterID)
			deliver[RegisteredWorker](b, MasterID, w1)
			b.submit(NoPref, w1)
			deliver[RegisterApplication](b, DriverID, MasterID)
			deliver[LaunchExecutor](b, MasterID, w1)
			deliver[LaunchExecutor](b, w1, x1)
			deliver[RegisterExecutor](b, x1, DriverID)
		},
		// The master registers a job's application; the driver crashes,
		// and its new incarnation reports the application lost; the master
		// removes the driver's record and, as the application has no
		// executors, sends itself the application's removal, but crashes
		// first. The recovering master finds the application without its
		// driver record and dereferences it.
		Bug3150: func(b *builder) {
			b.apply(record.StartEvent(MasterID))
			b.apply(record.StartEvent(DriverID))
			b.submit(NoPref)
			deliver[RegisterApplication](b, DriverID, MasterID)
			b.apply(record.RestartEvent(DriverID))
			deliver[DriverDisconnected](b, DriverID, MasterID)
			b.apply(record.RestartEvent(MasterID))
		},
		// The driver registers a job's application and its registration
		// timer fires before the master's answer arrives: the master gets
		// the registration twice and persists the driver's record again.
		Bug9256: func(b *builder) {
			b.apply(record.StartEvent(MasterID))
			b.apply(record.StartEvent(DriverID))
			b.submit(NoPref)
			deliver[RegisterApplication](b, DriverID, MasterID)
			deliver[RegisterRetry](b, DriverID, DriverID)
			deliver[RegisterApplication](b, DriverID, MasterID)
		},
	}
}
