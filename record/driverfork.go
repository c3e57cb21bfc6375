package record

import (
	"context"
	"maps"
	"slices"
)

// Fork returns a Driver that continues independently from this one's
// present state (its run forked by Sim.Fork, its position, its decisions
// off the schedule, drops and violations seen), following schedule with f
// from step Pos on. Schedule must agree with this driver's schedule on the
// steps before Pos, the ones taken: the fork then runs exactly as a fresh
// Driver that followed schedule with f from the start would. It is how a
// check of a candidate that shares a prefix with an earlier one starts
// where they differ instead of re-executing the prefix (package dpor). A
// Driver kept as a snapshot is never run: it is only forked.
func (d *Driver) Fork(schedule []Event, f Follow) *Driver {
	return &Driver{setup: d.setup, plan: d.plan, sim: d.sim.Fork(), sched: schedule, f: f,
		pos: d.pos, trail: slices.Clip(d.trail), left: d.left, dropped: maps.Clone(d.dropped),
		since: d.since, found: d.found, first: d.first, div: d.div, stop: d.stop}
}

// RunTo takes the schedule's steps until Pos reaches k, the schedule
// ends or the run stops (Stopped), as Run does.
func (d *Driver) RunTo(ctx context.Context, k int) error {
	var o Outcome
	for d.pos < min(k, len(d.sched)) && !d.Stopped() {
		if err := d.next(ctx, &o); err != nil {
			return err
		}
	}
	return nil
}
