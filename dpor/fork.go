package dpor

import (
	"context"
	"reflect"
	"slices"

	"github.com/demi-project/demi/record"
)

// Forked checks.
//
// Minimization checks many candidates that share a prefix with the one
// checked just before: delta debugging removes a chunk of the plan, so two
// consecutive candidates agree up to the earlier of their two chunks. A
// Checker therefore keeps snapshots of its last check's first schedule
// (STSSched): the whole state of the run (a record.Driver, forked with
// record.Sim.Fork) at a few positions of the plan, with the schedule's
// record up to there (its decisions and the backtracks it set). The first
// schedule of the next check starts from a fork of the latest snapshot
// before the first step where its plan differs, instead of from the start;
// a backtrack schedule starts from the latest snapshot within the prefix it
// replays. A run is a deterministic function of its setup and its steps,
// and the snapshot is the state those steps lead to, so a forked schedule
// executes exactly what the full one would: the same deliveries, the same
// violation, the same trace, the same backtracks.
//
// Memory stays linear in the plan: at most 2*maxSnapshots snapshots, at
// least a stride of the plan apart (stride = len(plan)/maxSnapshots, at
// least minStride steps). A schedule's snapshots get twice as far apart
// as it goes (a stride after the one it started from, then two, four,
// ...): the next check mostly differs soon after where this one did, and
// a snapshot costs a copy of each actor the run touches after it. On a
// 1,543-delivery etcdraft trace this takes 68 % fewer snapshots and
// re-executes 1 % more events. A snapshot shares the event log's prefix and,
// copy on write, the actors' states with the run it came from, so it holds
// one copy of the actors, the messages in flight and its share of the log.
//
// Snapshots are taken only under the settings they were taken with (mode,
// schedule budget, Broad, order: the backtracks a schedule sets depend on
// them); NoDiverge checks, and a Checker with Config.FullRuns, never fork.
// A system whose actors cannot be copied (record.Sim.ForkError) is found
// out by the first run that copies one: the check is run again in full and
// the Checker stops forking. A run that starts from no snapshot forks the
// origin, a run before its first step kept once, rather than set up a new
// one (resolving the options and building the Sim cost more).

const (
	// maxSnapshots sets the stride, len(plan)/maxSnapshots; the Checker
	// keeps at most twice as many snapshots.
	maxSnapshots = 16
	// minStride is the fewest plan steps between two snapshots. Forking
	// and copying the actors a forked run touches costs about as much as
	// running a few events: minimizing raft-58b and paxos with 8 runs
	// about 45 % fewer events than full runs, with 64 about 10 % fewer.
	minStride = 8
)

// forks are a Checker's snapshots (see above).
type forks struct {
	off bool // Config.FullRuns, or a fork error seen
	// minStride is the fewest plan steps between two snapshots
	// (0 = minStride; tests set less).
	minStride int
	// failed reports a fork error in the current check (see Check).
	failed bool
	key    forkKey
	// plan holds the steps the snapshots are states of: the last checked
	// plan's, up to the last snapshot.
	plan []Step
	list []snapshot // by increasing pos
	// origin is a run before its first step: a fork of it is a fresh run
	// without setting one up (resolving the options, building the Sim).
	origin *snapshot
	// forked counts the schedules started from a snapshot, skipped the
	// events they did not re-execute (for tests).
	forked, skipped int64
}

// forkKey are the settings a first schedule's record depends on besides
// its plan.
type forkKey struct {
	mode  Mode
	room  int
	broad bool
	order Order
}

// snapshot is a first schedule's state before plan step pos.
type snapshot struct {
	pos int
	d   *record.Driver // never run, only forked
	// The schedule's record up to pos: its decisions and their hashes,
	// the backtracks it set (a heap, parent nil) and their counts.
	decisions    []decision
	hashes       []uint64
	backtracks   []backtrack
	typed, broad int
}

// forkKey returns the settings of c's next first schedule.
func (c *Checker) forkKey() forkKey {
	if !c.explores() {
		return forkKey{mode: STS} // no record: only the plan matters
	}
	return forkKey{mode: c.cfg.Mode, room: c.room, broad: c.cfg.Broad, order: c.cfg.Order}
}

// forking reports whether c's checks fork.
func (c *Checker) forking() bool { return !c.forks.off && c.cfg.Mode != NoDiverge }

// start returns the snapshot the first schedule of plan starts from (the
// origin when no other fits, nil without one), and forgets the snapshots
// plan does not share.
func (f *forks) start(plan Plan, key forkKey) *snapshot {
	if key != f.key {
		f.reset()
		f.key = key
		return f.origin
	}
	n := 0
	for n < min(len(f.plan), len(plan)) && sameStep(&f.plan[n], &plan[n]) {
		n++
	}
	k := len(f.list)
	for k > 0 && f.list[k-1].pos > n {
		k--
	}
	clear(f.list[k:])
	f.list = f.list[:k]
	if k == 0 {
		f.plan = f.plan[:0]
		return f.origin
	}
	f.plan = f.plan[:f.list[k-1].pos]
	return &f.list[k-1]
}

// within returns the latest snapshot of the check's first schedule with at
// most j decisions, else the origin.
func (f *forks) within(j int) *snapshot {
	for k := len(f.list) - 1; k >= 0; k-- {
		if len(f.list[k].decisions) <= j {
			return &f.list[k]
		}
	}
	return f.origin
}

// next returns the plan position of the next snapshot of plan's first
// schedule, now at pos, or -1 for none; the schedule has taken taken
// snapshots so far, and each is twice as far from the one before.
func (f *forks) next(plan Plan, pos, taken int) int {
	least := minStride
	if f.minStride > 0 {
		least = f.minStride
	}
	stride := max(least, (len(plan)+maxSnapshots-1)/maxSnapshots)
	gap := stride << min(taken, 30)
	at := gap
	if len(f.list) > 0 {
		at = f.list[len(f.list)-1].pos + gap
	}
	at = max(at, pos)
	if at >= len(plan) {
		return -1
	}
	return at
}

// add keeps snapshot sn of plan's first schedule.
func (f *forks) add(plan Plan, sn snapshot) {
	if len(f.list) >= 2*maxSnapshots {
		// Thin out: every other one, the latest kept.
		kept := f.list[:0]
		for k := 1 - len(f.list)%2; k < len(f.list); k += 2 {
			kept = append(kept, f.list[k])
		}
		clear(f.list[len(kept):])
		f.list = kept
	}
	// f.plan ends at the latest snapshot, and plan agrees with it there.
	f.plan = append(f.plan, plan[len(f.plan):sn.pos]...)
	f.list = append(f.list, sn)
}

// reset forgets every snapshot.
func (f *forks) reset() {
	clear(f.list)
	f.list = f.list[:0]
	f.plan = f.plan[:0]
}

// sameStep reports whether a check reads a and b alike: the same event
// (an external one with an equal message) and, for a delivery, the same
// fingerprint and matching flags. A delivery step's message is not read:
// it is matched by its fingerprint.
func sameStep(a, b *Step) bool {
	if a.FP != b.FP || a.Wildcard != b.Wildcard || a.Reroute != b.Reroute || a.Flush != b.Flush {
		return false
	}
	x, y := &a.Event, &b.Event
	if x.Kind != y.Kind || x.ID != y.ID || x.From != y.From || x.To != y.To || x.Timer != y.Timer ||
		x.Cause != y.Cause || x.Actor != y.Actor || x.Cond != y.Cond || x.Limit != y.Limit || x.At != y.At ||
		!slices.Equal(x.A, y.A) || !slices.Equal(x.B, y.B) {
		return false
	}
	return x.Kind == record.Deliver || reflect.DeepEqual(x.Msg, y.Msg)
}

// setOrigin keeps a fresh run of c's setup as the origin of later runs
// (nil when the setup is refused: a full run reports why).
func (c *Checker) setOrigin() {
	d, err := record.NewDriver(c.setup(), nil, record.Follow{})
	if err == nil {
		d.Sim().CompactLog() // and its forks: most runs' logs are thrown away
		c.forks.origin = &snapshot{d: d, hashes: []uint64{0}}
	}
}

// runTaking runs the first schedule s of plan on d to the end of the plan
// or until it stops, as Driver.Run does, taking snapshots on the way.
func (c *Checker) runTaking(ctx context.Context, d *record.Driver, plan Plan, s *schedule) error {
	for taken := 0; ; taken++ {
		at := c.forks.next(plan, d.Pos(), taken)
		if at < 0 {
			return d.Run(ctx)
		}
		if err := d.RunTo(ctx, at); err != nil {
			return err
		}
		if d.Stopped() || d.Pos() != at {
			return nil
		}
		sn := snapshot{pos: at, d: d.Fork(nil, record.Follow{}),
			decisions: slices.Clip(s.decisions), hashes: slices.Clip(s.hashes), typed: s.typed, broad: s.broad}
		if len(c.queue.q) > 0 {
			sn.backtracks = make([]backtrack, len(c.queue.q))
			for i, b := range c.queue.q {
				b.parent = nil
				sn.backtracks[i] = b
			}
		}
		c.forks.add(plan, sn)
	}
}
