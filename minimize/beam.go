package minimize

import (
	"context"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// The beam: a violation keeps its fingerprint however it is reached, yet a
// removal can make it occur by another route (the detail reads otherwise:
// another rule of the invariant breaks, on another kind of event). The
// smaller trace of the new route is taken, and the removal tier goes on
// from it to the new route's local minimum, which can be larger than the
// old route's: the route the removal tier left is never tried again. So the
// run keeps, for each route it left, the last best trace of that route
// (the smallest), and the pass other-routes runs the removal tier on the
// routes kept, smallest first, in a fork that keeps to the route (a check
// that reaches the violation by another route is no success there: the
// same removals would switch again), offering each result that is smaller
// than the best trace.

// routeOf is the shape of a violation's detail: its member names and
// numbers masked, so that two occurrences that differ only in which members
// or which terms, indices or counters they name read the same.
func routeOf(v *record.Violation, members []string) string {
	if v == nil {
		return ""
	}
	s := v.Detail
	for _, id := range members {
		s = strings.ReplaceAll(s, id, "*")
	}
	var b strings.Builder
	digits := false
	for _, r := range s {
		if '0' <= r && r <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// noteRoute is called, m.mu held, when tr replaces old as the best trace:
// if the violation's route changed, old is kept as its route's best.
func (m *minimizer) noteRoute(old, tr *record.Trace) {
	if m.routes == nil || old == nil {
		return
	}
	from, to := routeOf(old.Header.Violation, m.memberNames), routeOf(tr.Header.Violation, m.memberNames)
	if from != to {
		m.routes[from] = old
	}
}

// otherRoutes returns the kept routes' traces not tried yet, of a route
// other than the best trace's, smallest first (at most maxRoutes).
func (m *minimizer) otherRoutes() []*record.Trace {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := routeOf(m.best.Header.Violation, m.memberNames)
	var out []*record.Trace
	for r, t := range m.routes {
		if r != cur && !m.routeTried[t] && total(t) > total(m.best) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *record.Trace) int {
		if smaller(a, b) {
			return -1
		}
		if smaller(b, a) {
			return 1
		}
		return strings.Compare(routeOf(a.Header.Violation, m.memberNames), routeOf(b.Header.Violation, m.memberNames))
	})
	return out[:min(len(out), maxRoutes)]
}

func (m *minimizer) hasOtherRoutes(context.Context) bool { return len(m.otherRoutes()) > 0 }

// onRoute reports whether tr's violation is on m's route (any route when
// m has none).
func (m *minimizer) onRoute(tr *record.Trace) bool {
	return m.route == "" || routeOf(tr.Header.Violation, m.memberNames) == m.route
}

// otherRoutesPass runs the removal tier, from its first pass, on each
// route kept (otherRoutes) in a fork, and offers each result with fewer
// deliveries plus externals than the best trace.
func (m *minimizer) otherRoutesPass(ctx context.Context) error {
	for _, start := range m.otherRoutes() {
		m.routeTried[start] = true
		f := m.fork(start)
		f.memberNames, f.route = m.memberNames, routeOf(start.Header.Violation, m.memberNames)
		err := m.forkRemovals(ctx, f)
		b := f.snapshotBest()
		switch held := m.aside[StageOtherRoutes]; {
		case total(b) >= total(m.snapshotBest()):
		case !m.holding:
			m.offer(b)
		case held == nil || total(b) < total(held):
			m.aside[StageOtherRoutes] = b // offered when the search tier reaches the pass
		}
		if err != nil {
			return err
		}
	}
	return nil
}
