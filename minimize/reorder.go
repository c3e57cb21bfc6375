package minimize

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// A move changes the best trace without making it smaller (another interleaving, route or target:
// out of the removals' reach); its plan is checked, a descent then removes events one at a time
// while they go, and the move is kept when the descent ends smaller (docs/minimization.md).

// reorderWith tries the moves gen lists for the best trace, each with its descent (scanMoves, rotating).
func (m *minimizer) reorderWith(ctx context.Context, gen func(base *record.Trace) []edit) error {
	return m.scanMoves(ctx, func(base *record.Trace) ([]edit, error) { return gen(base), nil }, reorderChunk, false, true)
}

// scanMoves tries gen's moves of the best trace (tryMoves); the first that ends smaller replaces it, until none
// does. rotate: a scan after a success starts at the move that paid (the ones before mostly fail again).
func (m *minimizer) scanMoves(ctx context.Context, gen func(base *record.Trace) ([]edit, error), chunk int, broad, rotate bool) error {
	at := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		base := m.snapshotBest()
		moves, err := gen(base)
		if err != nil {
			return err
		}
		if at >= len(moves) {
			at = 0
		}
		i, tr, err := m.tryMoves(ctx, base, slices.Concat(moves[at:], moves[:at]), chunk, broad)
		if err != nil || !m.offer(tr) {
			return err
		}
		if rotate {
			at = (at + i) % len(moves)
		}
	}
}

// tryMoves checks the moves of base in order, chunk at a time, with tryPlan:
// the first trace smaller than base and its move's index, or -1 and nil.
func (m *minimizer) tryMoves(ctx context.Context, base *record.Trace, moves []edit, chunk int, broad bool) (int, *record.Trace, error) {
	bp := dpor.FromEvents(m.fp, base.Events)
	seen := newDescended()
	return m.firstTrace(ctx, len(moves), chunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		return m.tryPlan(ctx, c, base, moves[i](c.Fingerprinter(), bp), broad, seen, i/chunk)
	})
}

// tryPlan checks plan (broad: an inserted event's, kept as it is when already smaller), then descends
// from the trace checked. It returns a trace smaller than base, or nil, and the steps it ran.
func (m *minimizer) tryPlan(ctx context.Context, c *dpor.Checker, base *record.Trace, plan dpor.Plan, broad bool, seen *descended, chunk int) (*record.Trace, int64, error) {
	maxSched := reorderSchedules
	if broad {
		maxSched = injectSchedules
	}
	tr, steps, err := m.check(ctx, c, checkSettings{mode: dpor.TFB, maxSched: maxSched, broad: broad}, plan)
	if err != nil || tr == nil {
		return nil, steps, err
	}
	if broad && smaller(tr, base) {
		return tr, steps, nil
	}
	var path []passed
	cur, more, err := m.descent(ctx, c, tr, false, func(key checkKey, left int) bool {
		path = append(path, passed{key, reached{chunk, left}})
		return seen.ends(key, chunk, left)
	})
	if err == nil && !smaller(cur, base) {
		seen.note(path)
		cur = nil
	}
	return cur, steps + more, err
}

// descended remembers, for one scan of moves, the traces failed descents passed through with their checks left: a
// descent is a function of both, so a later one with no more left there fails too. Only earlier chunks count.
type descended struct {
	mu   sync.Mutex
	seen map[checkKey][]reached
}

// reached is a descent at a trace: its move's chunk and its checks left.
type reached struct{ chunk, left int }

// passed is a trace a descent passed through (its key) and how.
type passed struct {
	key checkKey
	reached
}

func newDescended() *descended { return &descended{seen: map[checkKey][]reached{}} }

// ends reports whether a descent of chunk at key with left checks left is
// known to fail: one of an earlier chunk passed it with as many left or more.
func (d *descended) ends(key checkKey, chunk, left int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.ContainsFunc(d.seen[key], func(p reached) bool { return p.chunk < chunk && p.left >= left })
}

// note remembers the traces of a failed descent.
func (d *descended) note(path []passed) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range path {
		d.seen[p.key] = append(d.seen[p.key], p.reached)
	}
}

// descent removes events from cur, one removal (removals) at a time while that reproduces (stop may end it sooner),
// in at most descentChecks checks, and returns the result and its steps; later deliveries may take another sender's
// message (Step.Reroute: a move can open a second route to a receiver). alone (after an insertion): each delivery
// alone, then with its FIFO queue.
func (m *minimizer) descent(ctx context.Context, c *dpor.Checker, cur *record.Trace, alone bool, stop func(key checkKey, left int) bool) (*record.Trace, int64, error) {
	fifo, maxChecks := m.fifo(), descentChecks
	cands := func(events []record.Event) [][]int {
		if !alone {
			return removals(events, fifo)
		}
		out := removals(events, false)
		if fifo {
			for _, drop := range removals(events, true) {
				if len(drop) > 1 {
					out = append(out, drop)
				}
			}
		}
		return out
	}
	steps, checks := int64(0), 0
	for improved := true; improved && checks < maxChecks; {
		improved = false
		cp := dpor.FromEvents(c.Fingerprinter(), cur.Events)
		if stop != nil {
			if key, ok := keyOf(checkSettings{}, cp); ok && stop(key, maxChecks-checks) {
				break
			}
		}
		for _, drop := range cands(cur.Events) {
			if checks >= maxChecks {
				break
			}
			checks++
			tr, n, err := m.check(ctx, c, checkSettings{mode: dpor.TFB, maxSched: descentSchedules}, cp.Without(drop, drop[0], true))
			steps += n
			if err != nil {
				return nil, steps, err
			}
			if tr != nil && smaller(tr, cur) {
				cur, improved = tr, true
				break
			}
		}
	}
	return cur, steps, nil
}

// fifo reports whether the system's network is FIFO.
func (m *minimizer) fifo() bool {
	return m.sys.Network == nil || m.sys.Network(m.resolved) == record.FIFO
}

// removals lists the single removals of a descent: every external unit,
// then every delivery from the last (queueSuffix).
func removals(events []record.Event, fifo bool) [][]int {
	out := externalUnits(events)
	dels := deliveryIndices(events)
	for k := len(dels) - 1; k >= 0; k-- {
		out = append(out, queueSuffix(events, dels[k], fifo))
	}
	return out
}

// moves lists the reorder moves of the best trace, in a fixed order:
// swaps (swapEdits), external events later, re-inserted externals, then reroutes.
func (m *minimizer) moves(base *record.Trace) []edit {
	ev := base.Events
	out := slices.Concat(swapEdits(ev))
	// External events later.
	have := map[record.Shape]bool{} // the external events' shapes
	for i, e := range ev {
		if !e.Kind.IsExternal() {
			continue
		}
		have[record.ShapeOf(e)] = true
		for j := i + 1; j < len(ev); j++ {
			if ev[j].Kind == record.Deliver {
				out = append(out, moveTo(i, j+1))
			}
		}
	}
	// Re-inserted externals: each shape the input had and base lacks.
	for _, x := range m.dropped {
		if have[record.ShapeOf(x)] {
			continue
		}
		for p := 1; p <= len(ev); p++ {
			out = append(out, insertAt(x, p))
		}
	}
	lim := m.limitsOf(StageRetarget)
	out = append(out, rerouteEdits(ev, lim.deliveries)...)
	return out[:min(len(out), lim.moves)]
}

// swapEdits lists the swaps of events: each delivery j before the previous delivery i to the same
// actor; then, where j's message was sent after i, i just after j (an actor not yet ready for a
// message, one not yet configured say, takes it without an answer).
func swapEdits(events []record.Event) (before, after []edit) {
	last := map[record.ActorID]int{}
	for j, e := range events {
		if e.Kind != record.Deliver {
			continue
		}
		if i, ok := last[e.To]; ok {
			before = append(before, moveTo(j, i))
			if e.Cause > i {
				after = append(after, moveTo(i, j+1))
			}
		}
		last[e.To] = j
	}
	return before, after
}

// aheadEdits lists each external event of an actor moved earlier, after the leading ones, with the
// actor's later deliveries flushed (dpor.Plan.Flushed: a member started before an election takes the leader's
// first append, not a heartbeat); at most most moves.
func aheadEdits(events []record.Event, fifo bool, most int) (out []edit) {
	first := leading(events, record.Kind.IsExternal)
	for i, e := range events {
		for j, x := i-1, cmp.Or(e.Actor, e.To); i > first && e.Kind.IsExternal() && x != "" && j >= max(first, 1) && len(out) < most; j-- {
			out = append(out, func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
				return moveTo(i, j)(fp, bp).Flushed(j+1, x, fifo)
			})
		}
	}
	return out
}

// reinsertable returns the first start, send, kill or restart of each
// shape (record.Shape) of events: those that can be re-inserted alone.
func reinsertable(events []record.Event) []record.Event {
	seen := map[record.Shape]bool{}
	var out []record.Event
	for _, e := range events {
		switch e.Kind {
		case record.Start, record.Send, record.Kill, record.Restart:
			if s := record.ShapeOf(e); !seen[s] {
				seen[s] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// moveTo moves the event at from to position to (dpor.Plan.Moved).
func moveTo(from, to int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan { return bp.Moved(from, to) }
}

// insertAt inserts external event x at position at, wildcards after it.
func insertAt(x record.Event, at int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		return slices.Insert(slices.Clone(bp), at, dpor.Step{Event: x}).Wildcards(at)
	}
}

// rerouteEdits lists the reroute moves of events: every window of consecutive deliveries left out, shortest
// first, from the end, later deliveries reroutable; none beyond most deliveries (the moves are quadratic).
func rerouteEdits(events []record.Event, most int) []edit {
	dels := deliveryIndices(events)
	if len(dels) > most {
		return nil
	}
	var out []edit
	for w := 1; w < len(dels); w++ {
		for s := len(dels) - w; s >= 0; s-- {
			drop := dels[s : s+w]
			out = append(out, func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
				return bp.Without(drop, drop[0]+1, true)
			})
		}
	}
	return out
}
