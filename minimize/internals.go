package minimize

import (
	"context"
	"maps"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/ddmin"
	"github.com/demi-project/demi/record"
)

// provenance drops the deliveries outside the causal past of the violating event v, else outside that of v
// and of the last event before v of each actor the violation names (an invariant reads every actor's state).
func (m *minimizer) provenance(ctx context.Context) error {
	base := m.snapshotBest()
	v := base.Header.Violation.Event
	if v < 0 || v >= len(base.Events) {
		v = len(base.Events) - 1
	}
	members := m.sys.Members(m.resolved)
	c, named := record.NewCausality(members, base.Events), []int{v}
	text := base.Header.Violation.Fingerprint + " " + base.Header.Violation.Detail
	for _, id := range record.NamedActors(text, members) {
		for i := v; i >= 0; i-- {
			e := base.Events[i]
			if e.Kind == record.Deliver && e.To == id || e.Actor == id && e.Kind.IsExternal() {
				named = append(named, i)
				break
			}
		}
	}
	var cands [][]int
	for _, targets := range [][]int{{v}, named} {
		past := c.Past(targets...)
		var keep []int
		for i, e := range base.Events {
			if i <= v && (e.Kind.IsExternal() || past[i]) {
				keep = append(keep, i)
			}
		}
		if len(keep) < len(base.Events) && (len(cands) == 0 || !slices.Equal(cands[len(cands)-1], keep)) {
			cands = append(cands, keep)
		}
	}
	bp := dpor.FromEvents(m.fp, base.Events)
	_, tr, err := m.first(ctx, len(cands), dpor.STS, 1, func(_ *fingerprint.Fingerprinter, k int) dpor.Plan {
		return planOf(bp, cands[k], -1)
	})
	m.offer(tr)
	return err
}

// edit turns the best trace's plan into a candidate plan.
type edit func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan

// removal is an edit that drops the events at the sorted indices drop and
// matches deliveries at or after wildFrom by type (wildFrom < 0: none).
func removal(drop []int, wildFrom int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		return bp.Without(drop, wildFrom, false)
	}
}

// greedy tries the edits of the best trace in order; the first that reproduces smaller makes it the best, and
// the scan resumes at the same position of the new edits, wrapping around until a full scan finds none.
func (m *minimizer) greedy(ctx context.Context, mode dpor.Mode, maxSched int, edits func(base *record.Trace) []edit) error {
	pos, improvedThisPass := 0, false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		base := m.snapshotBest()
		es := edits(base)
		if pos >= len(es) {
			if !improvedThisPass || len(es) == 0 {
				return nil
			}
			pos, improvedThisPass = 0, false
			continue
		}
		bp, from := dpor.FromEvents(m.fp, base.Events), pos
		i, tr, err := m.first(ctx, len(es)-from, mode, maxSched, func(fp *fingerprint.Fingerprinter, k int) dpor.Plan {
			return es[from+k](fp, bp) // nil: an edit with nothing to try
		})
		if err != nil {
			return err
		}
		if i < 0 {
			pos = len(es)
			continue
		}
		if m.offer(tr) {
			improvedThisPass, pos = true, from+i
		} else {
			pos = from + i + 1
		}
	}
}

// fifoInternals leaves deliveries pending one at a time, latest first: the last delivery of each sender-receiver queue
// (one in the middle would block the rest) and the timer firings; later deliveries are wildcards.
func (m *minimizer) fifoInternals(ctx context.Context) error {
	return m.greedy(ctx, dpor.STS, 1, func(base *record.Trace) []edit {
		type pair struct{ from, to record.ActorID }
		seen := map[pair]bool{}
		var es []edit
		for i := len(base.Events) - 1; i >= 0; i-- {
			e := base.Events[i]
			if e.Kind != record.Deliver {
				continue
			}
			if e.Timer == "" {
				p := pair{e.From, e.To}
				if seen[p] {
					continue
				}
				seen[p] = true
			}
			es = append(es, removal([]int{i}, i))
		}
		return es
	})
}

// clockOf returns a delivery's logical clock (-1: none) and whether its message advances the receiver's.
func clockOf(e record.Event) (clock int, advances bool) {
	clock = -1
	if cl, ok := e.Msg.(record.Clocked); ok && e.Kind == record.Deliver {
		clock = cl.LogicalClock()
	}
	if a, ok := e.Msg.(record.ClockAdvancer); ok && e.Kind == record.Deliver {
		advances = a.AdvancesClock()
	}
	return clock, advances
}

// clockClusters removes the deliveries of one logical clock value, oldest first, later deliveries wildcards,
// with the clock-advancing timers since the previous clock: all of them, then each alone, then none.
func (m *minimizer) clockClusters(ctx context.Context) error {
	return m.greedy(ctx, dpor.TFB, m.budgetFor(), func(base *record.Trace) []edit {
		clusters := map[int][]int{}
		for i, e := range base.Events {
			if c, _ := clockOf(e); c >= 0 {
				clusters[c] = append(clusters[c], i)
			}
		}
		var es []edit
		for _, c := range slices.Sorted(maps.Keys(clusters)) {
			idx := clusters[c]
			first, last := idx[0], idx[len(idx)-1]
			lo := 0
			for i := first - 1; i >= 0; i-- {
				if ci, _ := clockOf(base.Events[i]); ci >= 0 && ci < c {
					lo = i
					break
				}
			}
			var timers []int
			for i := lo; i <= last; i++ {
				if ci, adv := clockOf(base.Events[i]); adv && ci <= c && !slices.Contains(idx, i) {
					timers = append(timers, i)
				}
			}
			if len(timers) > 1 {
				drop := ddmin.Union(idx, timers)
				es = append(es, removal(drop, drop[0]))
			}
			for _, t := range timers {
				drop := ddmin.Union(idx, []int{t})
				es = append(es, removal(drop, drop[0]))
			}
			es = append(es, removal(idx, first))
		}
		return es
	})
}

// budgetFor returns the schedules of a TFB check of the best trace:
// MaxSchedules, proportionally fewer (at least one) beyond TFBScale.
func (m *minimizer) budgetFor() int {
	d, n := m.snapshotBest().Header.Deliveries, m.cfg.MaxSchedules
	return max(1, min(n, n*m.cfg.TFBScale/max(d, 1)))
}

// causalCone returns delivery i and every delivery it caused, sorted.
func causalCone(events []record.Event, i int) []int {
	in, out := map[int]bool{i: true}, []int{i}
	for j := i + 1; j < len(events); j++ {
		if e := events[j]; e.Kind == record.Deliver && in[e.Cause] {
			in[j] = true
			out = append(out, j)
		}
	}
	return out
}

// oneAtATime tries, with type-fingerprint backtracks, removing every causal cone (of a timer firing, or of any delivery off FIFO),
// every delivery (queueSuffix), every external unit and each event of one, on short traces every pair of units.
func (m *minimizer) oneAtATime(ctx context.Context) error {
	fifo := m.fifo()
	err := m.greedy(ctx, dpor.TFB, m.budgetFor(), func(base *record.Trace) []edit {
		var es []edit
		// add adds drop() when at least fewest, wildcards from i; lazily on long traces.
		add := func(i, fewest int, drop func() []int) {
			if base.Header.Deliveries >= longTrace {
				es = append(es, func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
					if d := drop(); len(d) >= fewest {
						return removal(d, i)(fp, bp)
					}
					return nil
				})
			} else if d := drop(); len(d) >= fewest {
				es = append(es, removal(d, i))
			}
		}
		for _, i := range deliveryIndices(base.Events) {
			if e := base.Events[i]; e.Timer == "" && fifo {
				continue // its queue would block: see the suffix removals
			}
			add(i, 2, func() []int { return causalCone(base.Events, i) })
		}
		for _, i := range deliveryIndices(base.Events) {
			add(i, 1, func() []int { return queueSuffix(base.Events, i, fifo) })
		}
		return es
	})
	if err != nil {
		return err
	}
	return m.greedy(ctx, dpor.TFB, m.budgetFor(), func(base *record.Trace) []edit {
		var es []edit
		units := externalUnits(base.Events)
		for _, u := range units {
			es = append(es, removal(u, u[0]))
			if len(u) > 1 {
				for _, i := range u {
					es = append(es, removal([]int{i}, i))
				}
			}
		}
		// Pairs: two events only needed together.
		if len(units) <= m.limitsOf(StageOneAtATime).units {
			for a := range units {
				for b := a + 1; b < len(units); b++ {
					drop := ddmin.Union(units[a], units[b])
					es = append(es, removal(drop, drop[0]))
				}
			}
		}
		return es
	})
}

// queueSuffix returns delivery i and, under FIFO unless i is a timer
// firing, the later deliveries of its queue: what leaving i pending takes.
func queueSuffix(events []record.Event, i int, fifo bool) []int {
	drop := []int{i}
	if e := events[i]; fifo && e.Timer == "" {
		for j := i + 1; j < len(events); j++ {
			if f := events[j]; f.Kind == record.Deliver && f.Timer == "" && f.From == e.From && f.To == e.To {
				drop = append(drop, j)
			}
		}
	}
	return drop
}
