package check

import (
	"context"
	"errors"

	"github.com/demi-project/demi/record"
)

// eager runs the one schedule that treats messages of new types as part of
// the trace: the trace's steps matched loosely (record.MatchType), and every
// pending message of a type the trace never delivered, such as a message
// that changed code sends and the recorded run never had, delivered as soon
// as it is deliverable. The dpor search never delivers a message that no
// step stands for, so without this schedule a change that adds a message
// (a leader that now sends itself one) starves the receiver from the first
// such message on, and a long trace cannot reach its violation any more
// although the bug is still there. It returns the reproducing trace or nil.
func eager(ctx context.Context, sys *record.System, run *record.Trace, want *record.Violation) (*record.Trace, error) {
	known := map[string]bool{}
	for i := range run.Events {
		if e := &run.Events[i]; e.Msg != nil {
			known[record.TypeName(e.Msg)] = true
		}
	}
	d, err := record.NewDriver(run.Setup(sys), run.Events, record.Follow{Loose: record.MatchType, Want: want})
	if err != nil {
		return nil, err
	}
	extra := 0 // deliveries of new messages, at most one per step of the trace
	for !d.Found() && d.Sim().Halted() == nil {
		if id, ok := newMessage(d.Sim(), known); ok && extra < len(run.Events) {
			extra++
			if _, err := d.Deliver(ctx, id); err != nil {
				return nil, err
			}
			continue
		}
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) {
			break
		}
		if err != nil {
			return nil, err
		}
		if o.Divergence != nil {
			d.Skip() // an external event the changed run rejects
		}
	}
	if !d.Found() {
		return nil, nil
	}
	return d.Sim().Trace(d.Violation()), nil
}

// newMessage returns the first deliverable pending message (not a timer:
// when a timer fires is the schedule's choice) whose type is not known.
func newMessage(sim *record.Sim, known map[string]bool) (record.MsgID, bool) {
	pend := sim.InFlight()
	for i := range pend {
		if pend[i].Timer == "" && !known[record.TypeName(pend[i].Msg)] && sim.Deliverable(pend[i].ID) {
			return pend[i].ID, true
		}
	}
	return 0, false
}
