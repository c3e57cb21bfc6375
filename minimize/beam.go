package minimize

import (
	"context"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// The beam: the removal tier is greedy, so the route it commits to early
// decides the local minimum the other tiers descend to, and no move undoes
// it. The run therefore keeps a small beam of distinct starts besides the
// best trace, and the beam pass runs the driver's tiers (the removals to a
// fixpoint, then the moves, descend) on each start not tried yet, in a
// fork, offering each result with fewer deliveries plus externals than the
// best trace. A fork leaves the search tier out: a result the beam offers
// becomes the best trace, which the searches then take on from there. The
// starts are distinct by route, not by bytes:
//
//   - the trace after provenance, with the passes that remove groups of
//     deliveries (clock-clusters, ddmin-internals) ahead of the others in
//     every removal round: internal events first, where the best trace
//     took external events first;
//   - for each route of the violation the best trace left (a removal can
//     make the violation occur by another route: the detail reads
//     otherwise, another rule of the invariant breaks), that route's last
//     best trace, in a fork that keeps to the route (a check that reaches
//     the violation by another route is no success there: the same
//     removals would switch again).

// beamStart is one start of the beam: a trace, the route its fork keeps
// to ("" for any) and the passes its fork runs ahead of their tier.
type beamStart struct {
	t     *record.Trace
	route string
	ahead map[string]bool
}

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

// starts returns the beam's starts not tried yet: the trace after
// provenance first, then the kept routes' traces of a route other than the
// best trace's and larger than it, smallest first; at most the beam's limit.
func (m *minimizer) starts() []beamStart {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []beamStart
	if t := m.afterProvenance; t != nil && !m.tried[t] {
		out = append(out, beamStart{t: t, ahead: map[string]bool{StageClockClusters: true, StageDdminInternals: true}})
	}
	cur := routeOf(m.best.Header.Violation, m.memberNames)
	var routes []*record.Trace
	for r, t := range m.routes {
		if r != cur && !m.tried[t] && total(t) > total(m.best) {
			routes = append(routes, t)
		}
	}
	slices.SortFunc(routes, func(a, b *record.Trace) int {
		if smaller(a, b) {
			return -1
		}
		if smaller(b, a) {
			return 1
		}
		return strings.Compare(routeOf(a.Header.Violation, m.memberNames), routeOf(b.Header.Violation, m.memberNames))
	})
	for _, t := range routes {
		out = append(out, beamStart{t: t, route: routeOf(t.Header.Violation, m.memberNames)})
	}
	return out[:min(len(out), m.limitsOf(StageBeam).starts)]
}

func (m *minimizer) hasStarts(context.Context) bool { return m.kept != nil || len(m.starts()) > 0 }

// onRoute reports whether tr's violation is on m's route (any route when
// m has none).
func (m *minimizer) onRoute(tr *record.Trace) bool {
	return m.route == "" || routeOf(tr.Header.Violation, m.memberNames) == m.route
}

// beam runs the driver's tiers on each start (starts) in a fork. Its
// first call, right after provenance and before the best trace's own
// descent, keeps its result aside (kept), so that the second start's work
// comes before the other tiers' improvements rather than after the result
// is final; the next call offers it (and goes on to the other starts when
// it is not smaller): offered at once, a second start smaller than the
// first fixpoint but larger than what the moves make of it would take the
// moves' place. Later calls offer each result at once. Only a result with
// fewer deliveries plus externals than the best trace is offered (not one
// lighter in contents alone, so that a trace both starts minimize equally
// well keeps the first's result).
func (m *minimizer) beam(ctx context.Context) error {
	if t := m.kept; m.descending && t != nil {
		m.kept = nil
		if total(t) < total(m.snapshotBest()) && m.offer(t) {
			return nil
		}
	}
	for _, s := range m.starts() {
		m.tried[s.t] = true
		f := m.fork(s.t)
		f.route, f.ahead = s.route, s.ahead
		err := f.descend(ctx)
		m.steps.Store(f.steps.Load())
		m.schedules.Add(f.schedules.Load())
		switch b := f.snapshotBest(); {
		case total(b) >= total(m.snapshotBest()):
		case !m.descending:
			m.kept = b
		default:
			m.offer(b)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fork returns a minimizer that starts from best and shares m's system,
// configuration and checkers (m waits while it runs). Its step budget is
// what m's running call may still use. It leaves out the passes m leaves
// out, the search tier (the beam with it), and provenance and
// ddmin-externals as well: a fork starts after provenance, and
// ddmin-externals-wild does ddmin-externals' work there.
func (m *minimizer) fork(best *record.Trace) *minimizer {
	skip := map[string]bool{StageProvenance: true, StageDdminExternals: true}
	for _, p := range m.table {
		if p.Tier == Search {
			skip[p.Name] = true
		}
	}
	for p := range m.skip {
		skip[p] = true
	}
	f := &minimizer{shared: m.shared, cfg: m.cfg, skip: skip, calls: map[string]int{}, left: map[string]*record.Trace{},
		best: best, noStall: true, stallCap: m.stallCapOf()}
	f.cfg.Progress = nil
	f.cfg.Steps = m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}
