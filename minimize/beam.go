package minimize

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/demi-project/demi/record"
)

// The beam (docs/minimization.md, "The searches"): the removal tier is greedy, so the route it commits to early decides
// the local minimum. The beam pass descends in a fork from each start (removalOrders) once, within the pass's share.

// removalOrder is an order of the removal tier: passes ahead of the others, whether the fork stops
// after the removal tier, and whether a configuration keeps the actors the violation names.
type removalOrder struct {
	ahead               []string
	removals, keepNamed bool
}

// removalOrders are the beam's starts from the trace after provenance: the first descends fully, internal events first,
// with the named actors kept in configurations (the run's own descent drops them last: either route can be the cheaper);
// the other runs the removal tier alone, the FIFO removal ahead, within the steps the first's removal calls took.
func removalOrders() []removalOrder {
	return []removalOrder{
		{ahead: []string{StageClockClusters, StageDdminInternals}, keepNamed: true},
		{ahead: []string{StageFifoInternals}, removals: true},
	}
}

// unstarted reports whether the beam's starts can run and have not (the beam's state is the driver's alone).
func (m *minimizer) unstarted() bool { return m.afterProvenance != nil && !m.beamed }

// hasStarts reports whether the beam pass applies: a kept result to offer, starts not yet run, or (resuming) a
// member to descend.
func (m *minimizer) hasStarts(context.Context) bool {
	return m.kept != nil || m.unstarted() || m.resuming && (m.other != nil || m.route() != nil)
}

// route returns the first of the starts' results (fewest external events, then smallest) that holds a route the best
// trace's removals cannot reach: one of fewer external events, or of fewer than the best trace had when the moves
// first ran (movesFrom: a move took it lower) with an external event it lacks (by shape: removals never add one).
func (m *minimizer) route() *record.Trace {
	b, has := m.snapshotBest(), map[record.Shape]int{} // b's external events, by shape: counted once
	for _, e := range b.Events {
		has[record.ShapeOf(e)] += int(boolBit(e.Kind.IsExternal()))
	}
	for _, r := range m.routes {
		left, lacks := maps.Clone(has), false // lacks: r has more events of a shape than b
		for _, e := range r.Events {
			if s := record.ShapeOf(e); e.Kind.IsExternal() {
				left[s]--
				lacks = lacks || left[s] < 0
			}
		}
		if r.Header.Externals < b.Header.Externals || r.Header.Externals < m.movesFrom && lacks {
			return r
		}
	}
	return nil
}

// beam runs the driver's tiers on each start (removalOrders) in a fork. Its first call, before the best trace's own
// descent, keeps its smallest result aside (kept) for the next call to offer: offered at once, it could take the moves'
// place; the driver offers it sooner when the removals leave the best trace lead times its size (offerKept). Only a
// strictly smaller total is kept or offered: a tie keeps the earlier start's result.
func (m *minimizer) beam(ctx context.Context) error {
	if t := m.route(); m.resuming && m.other == nil && t != nil {
		m.other, m.otherLeft, m.routes = t, map[string]*record.Trace{}, slices.DeleteFunc(m.routes, func(r *record.Trace) bool { return r == t })
	}
	if m.resuming && m.other != nil {
		return m.descendOther(ctx)
	}
	if m.offerKept(1, false) {
		return nil
	}
	m.kept = nil // offered once
	share := passNamed(m.table, StageBeam).Share
	var first *minimizer      // the first removal order's fork, once descended
	var starts []removalOrder // each from the trace after provenance, unless they ran
	if m.unstarted() {
		starts = removalOrders()
	}
	m.beamed = true
	for i, s := range starts {
		if i > 0 {
			limit := m.shareOf(share, m.callEnd())
			if s.removals && first != nil && first.removalSteps > 0 {
				limit = min(limit, m.steps.Load()+first.removalSteps)
			}
			m.limit.Store(limit)
		}
		f := m.fork(m.afterProvenance, false)
		if !s.removals {
			f.untilStall(m)
		}
		f.removalsOnly, f.keepNamed, f.ahead = s.removals, s.keepNamed, map[string]bool{}
		for _, p := range s.ahead {
			f.ahead[p] = true
			if !m.skip[p] { // a pass ahead runs where forks leave it out, not where the run does (--passes)
				delete(f.skip, p)
			}
		}
		err := f.descend(ctx)
		m.steps.Store(f.steps.Load())
		if i == 0 {
			first = f
		}
		m.schedules.Add(f.schedules.Load())
		m.routes = append(m.routes, f.snapshotBest())
		slices.SortStableFunc(m.routes, func(a, b *record.Trace) int { return cmp.Or(a.Header.Externals-b.Header.Externals, total(a)-total(b)) })
		switch b := f.snapshotBest(); {
		case total(b) >= total(m.snapshotBest()):
		case !m.descending:
			if m.kept == nil || total(b) < total(m.kept) {
				m.kept = b
			}
		default:
			m.offer(b)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fork returns a minimizer from best that shares m's checkers (m waits),
// with the steps m's running call may still use, leaving out what m leaves
// out, the search tier (unless searches), provenance and ddmin-externals (-wild does its work).
func (m *minimizer) fork(best *record.Trace, searches bool) *minimizer {
	skip := m.leftOut(!searches)
	skip[StageProvenance], skip[StageDdminExternals] = true, true
	f := &minimizer{shared: m.shared, cfg: m.cfg, skip: skip, calls: map[string]int{}, left: map[string]*record.Trace{},
		best: best, noStall: true, stallCap: m.stallCapOf(), forkStats: m.forkStats}
	f.cfg.Progress, f.cfg.Steps = nil, m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}

// untilStall makes fork f, a full descent from a start, end each call at its own stall point
// (counted from the fork's start, as m's from the run's), within the start's share: a call that
// stops paying leaves the rest of the share to the calls after it (docs/minimization.md, the beam).
func (f *minimizer) untilStall(m *minimizer) {
	f.noStall, f.stallFloor = false, m.stallFloor
	f.uncounted.Store(f.steps.Load())
}

// descendOther descends, in a fork, from the beam's other member (the best trace the kept result displaced before the
// search tier reached it, or a start's result on a route the removals cannot reach, route), the searches included, the
// passes that had left it not called again, each call within its share of the run's steps left and the fork's own
// stall point (untilStall), and offers the fork's result.
func (m *minimizer) descendOther(ctx context.Context) error {
	f := m.fork(m.other, true)
	f.skip[StageBeam], f.stallCap, f.left, f.cfg.Steps, m.other = true, 0, m.otherLeft, m.callEnd(), nil
	f.untilStall(m)
	err := f.descend(ctx)
	m.steps.Store(f.steps.Load())
	m.schedules.Add(f.schedules.Load())
	m.offer(f.snapshotBest())
	return err
}
