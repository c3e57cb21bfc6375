package minimize

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// The search passes (docs/minimization.md, "The searches") share searchCuts: exact searches
// (optimal.SearchFrom) from cuts of a prefix for the cheapest continuation below the best trace's size.

// searches reports whether the best trace's runs fork.
func (m *minimizer) searches(ctx context.Context) bool {
	t := m.snapshotBest()
	if m.forks.of != t {
		ok := optimal.Forks(ctx, m.sys, t) == nil
		if ctx.Err() != nil {
			return false
		}
		m.forks.of, m.forks.ok = t, ok
	}
	return m.forks.ok
}

// shrinkSearch runs one call of the shrink-search pass on the best trace.
func (m *minimizer) shrinkSearch(ctx context.Context) error {
	base := m.snapshotBest()
	edits, _ := m.groupEdits(base, true)
	_, err := m.searchCuts(ctx, base, edits, nil, m.limitsOf(StageShrinkSearch))
	return err
}

// optimum runs one call of the optimum pass: the exact search over the subsequences of the best trace's
// external events (the leading ones too: a route may need one actor fewer, or another's turn first) and
// every schedule of the deliveries they enable, for a cost below its own, within its states.
func (m *minimizer) optimum(ctx context.Context) error {
	base := m.snapshotBest()
	left := m.searchStepsLeft()
	if left <= 0 {
		return errStepBudget
	}
	res, err := optimal.Search(ctx, m.sys, base, optimal.Config{Subsets: true, TotalBound: total(base) - 1,
		MaxStates: m.limitsOf(StageOptimum).states, MaxSteps: int(left), Workers: 1, Foresee: true, Leap: true, Proofs: m.proofs})
	if err != nil {
		return fmt.Errorf("optimum: %w", err)
	}
	m.steps.Add(int64(res.Steps) * searchStepCost)
	if !m.offer(res.Trace) && !res.Exhausted && int64(res.Steps) >= left {
		return errStepBudget
	}
	return nil
}

// shortForks reports whether the best trace has at most the deliveries in
// the limits of the pass named name, and forks.
func (m *minimizer) shortForks(ctx context.Context, name string) bool {
	return m.snapshotBest().Header.Deliveries <= m.limitsOf(name).deliveries && m.searches(ctx)
}

// suffixSearch runs one call of the suffix-search pass: from each cut of
// the best trace, the search for a continuation ending like it (searchCuts).
func (m *minimizer) suffixSearch(ctx context.Context) error {
	return m.searchDescent(ctx, m.snapshotBest(), nil, nil, m.limitsOf(StageSuffixSearch))
}

// startEdits lists, for each of xs in turn, the edits that leave out a start of it in base, with every delivery to or
// from it after it and base's last event moved to it, and the starts they left out (searchCuts applies them again).
func startEdits(base *record.Trace, xs []record.ActorID) (edits []edit, moved []record.Event) {
	end := base.Events[len(base.Events)-1].Actor
	for _, x := range xs {
		for i, e := range base.Events {
			if e.Kind != record.Start || e.Actor != x {
				continue
			}
			drop := []int{i}
			for j := i + 1; j < len(base.Events); j++ {
				if y := base.Events[j]; !y.Kind.IsExternal() && (y.From == x || y.To == x) {
					drop = append(drop, j)
				}
			}
			edits = append(edits, func(fp *fingerprint.Fingerprinter, p dpor.Plan) dpor.Plan {
				if p = removal(drop, -1)(fp, p); x != end {
					p[len(p)-1].Event.Actor = x
				}
				return p
			})
			moved = append(moved, record.StartEvent(x))
		}
	}
	return edits, moved
}

// lateStarts reports whether the best trace is short, forks, and ends with a
// start or restart of an actor it starts before (late-start).
func (m *minimizer) lateStarts(ctx context.Context) bool {
	return lateActor(m.snapshotBest()) != "" && m.shortForks(ctx, StageLateStart)
}

// lateActor returns the actor whose start or restart ends t if t starts it before, else "".
func lateActor(t *record.Trace) record.ActorID {
	if n := len(t.Events); n > 0 && (t.Events[n-1].Kind == record.Start || t.Events[n-1].Kind == record.Restart) &&
		slices.Contains(startedActors(t.Events[:n-1]), t.Events[n-1].Actor) {
		return t.Events[n-1].Actor
	}
	return ""
}

// lateStart runs one call of the late-start pass: for the actor whose (re)start shows the violation, the searches
// from the last cuts of the plan without its start and deliveries (it did not run; the plan is followed as far as
// the others' route goes), the start to apply again anywhere after the cut: a later start drops what was sent to
// the actor before, a route no plan follows (docs/minimization.md). The same for each other actor the trace
// starts, from every cut, the plan's last event moved to it, when the trace restarts x before: a restart that
// wipes what x was sent, where another actor started late could take x's part.
func (m *minimizer) lateStart(ctx context.Context) error {
	base := m.snapshotBest()
	xs := []record.ActorID{lateActor(base)}
	if slices.ContainsFunc(base.Events[:len(base.Events)-1], func(e record.Event) bool { return e.Kind == record.Restart && e.Actor == xs[0] }) {
		xs = append(xs, slices.DeleteFunc(startedActors(base.Events), func(y record.ActorID) bool { return y == xs[0] })...)
	}
	edits, moved := startEdits(base, xs)
	return m.searchDescent(ctx, base, edits, moved, m.limitsOf(StageLateStart))
}

// searchDescent runs searchCuts, then a descent from the trace found.
func (m *minimizer) searchDescent(ctx context.Context, base *record.Trace, edits []edit, moved []record.Event, lim limits) error {
	tr, err := m.searchCuts(ctx, base, edits, moved, lim)
	if err != nil || tr == nil {
		return err
	}
	small, steps, err := m.descent(ctx, m.checks[0], tr, true, nil)
	m.steps.Add(steps)
	if err == nil {
		m.offer(small)
	}
	return err
}

// searchCuts searches from the cuts of the prefixes of base's edited plans and of base itself, cheapest
// first, and offers and returns the first trace found (with lim.tie, one as costly as base too, returned
// unoffered for searchDescent's descent). With moved (late-start), edit k has left out moved[k], which its
// searches may apply again, and base itself is not searched. With a cost in lim (late-start, suffix-search) the
// searches end like base, add at most lim.cost and keep the plan's later external events to apply or leave
// out; otherwise base is searched in one round of identStates.
func (m *minimizer) searchCuts(ctx context.Context, base *record.Trace, edits []edit, moved []record.Event, lim limits) (*record.Trace, error) {
	if moved == nil {
		edits = append(edits, func(_ *fingerprint.Fingerprinter, p dpor.Plan) dpor.Plan { return p })
	}
	goal := lim.cost > 0
	bp := dpor.FromEvents(m.fp, base.Events)
	type search struct {
		pre, ins                   []record.Event
		last                       record.Event // the plan's last event, which a goal search ends like
		cut, bound, states, rounds int
	}
	var order []search
	ender := base.Events[len(base.Events)-1].Actor // late-start: the searches of the actor it (re)starts start at the last lastCuts cuts
	for k, e := range edits {
		plan := e(m.fp, bp)
		pre, err := m.followed(base, plan)
		if err != nil {
			return nil, fmt.Errorf("shrink search: %w", err)
		}
		first := leading(pre, record.Kind.IsExternal)
		states, rounds, most, last := lim.states, lim.rounds, total(base), len(pre)
		var ins []record.Event
		switch {
		case moved != nil:
			// The plan's external events after its prefix stay, to apply or leave out after the moved one.
			most, ins = lim.cost, moved[k:k+1]
			for _, st := range plan[len(pre):] {
				if st.Event.Kind.IsExternal() {
					pre = append(slices.Clip(pre), st.Event)
				}
			}
		case goal:
			most = lim.cost
		case k == len(edits)-1:
			states, rounds = lim.identStates, 1
		}
		for cut := last; cut >= max(first, 1) && (lim.lastCuts == 0 || moved[k].Actor != ender || cut > last-lim.lastCuts); cut-- {
			if bound := min(total(base)-cut-1+lim.tie, most); bound >= 1 {
				order = append(order, search{pre, ins, plan[len(plan)-1].Event, cut, bound, states, rounds})
			}
		}
	}
	slices.SortStableFunc(order, func(a, b search) int { return a.bound - b.bound })
	exhausted := make([]bool, len(order))
	for round := 0; round < lim.rounds; round++ {
		var todo []int
		for i, s := range order {
			if !exhausted[i] && round < s.rounds {
				todo = append(todo, i)
			}
		}
		left := m.searchStepsLeft()
		if left <= 0 || ctx.Err() != nil {
			return nil, cmp.Or(ctx.Err(), errStepBudget)
		}
		// Ahead on the workers; the results are those of one search after another.
		ahead := optimal.RunAhead(ctx, len(todo), m.cfg.Workers, int(left), func(ctx context.Context, k, maxSteps int) (*optimal.Result, error) {
			s := order[todo[k]]
			cfg := optimal.Config{Subsets: true, TotalBound: s.bound, MaxStates: s.states << (2 * round), MaxSteps: maxSteps, Workers: 1}
			t := &record.Trace{Header: base.Header, Events: s.pre[:s.cut]}
			if goal {
				t.Events, cfg.Insert, cfg.Last = s.pre, s.ins, &s.last
			}
			t.Recount()
			res, err := optimal.SearchFrom(ctx, m.sys, t, s.cut, cfg)
			if err != nil {
				return nil, fmt.Errorf("shrink search: cut %d: %w", s.cut, err)
			}
			return res, nil
		})
		defer ahead.Stop()
		for k, i := range todo {
			left := m.searchStepsLeft()
			if left <= 0 || ctx.Err() != nil {
				return nil, cmp.Or(ctx.Err(), errStepBudget)
			}
			res, err := ahead.Result(k, int(left))
			if err != nil {
				return nil, err
			}
			m.steps.Add(int64(res.Steps) * searchStepCost)
			if m.offer(res.Trace) || lim.tie > 0 && res.Trace != nil {
				return res.Trace, nil
			}
			exhausted[i] = res.Exhausted
		}
		ahead.Stop()
	}
	return nil, nil
}

// followed runs plan p while its events apply and every delivery finds its
// exact message, and returns the events it ran (up to a violation).
func (m *minimizer) followed(base *record.Trace, p dpor.Plan) ([]record.Event, error) {
	sim, err := base.Setup(m.sys).NewSim()
	if err != nil {
		return nil, err
	}
	var buf []record.Pending
	n := 0
	defer func() { m.steps.Add(int64(n)) }()
	for _, st := range p {
		e := st.Event
		n++
		if e.Kind.IsExternal() {
			if sim.Apply(e) != nil {
				break
			}
		} else {
			buf = sim.Enabled(buf[:0])
			i := slices.IndexFunc(buf, func(pd record.Pending) bool {
				return pd.From == e.From && pd.To == e.To && pd.Timer == e.Timer && m.fp.Of(pd.Msg).Full == st.FP.Full
			})
			if i < 0 || sim.Deliver(buf[i].ID) != nil {
				break
			}
		}
		if sim.Check() != nil {
			break
		}
	}
	return sim.Events(), nil
}

// searchStepsLeft is the number of forked steps the running call's searches
// may still take: the steps left before its end, searchStepCost each.
func (m *minimizer) searchStepsLeft() int64 { return (m.end() - m.steps.Load()) / searchStepCost }
