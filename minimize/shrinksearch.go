package minimize

import (
	"context"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// The shrink-search pass (docs/minimization.md, "The searches"): for
// every group edit (groupEdits), the edited plan runs while every delivery
// finds its message, and from cuts of that prefix exact searches over
// forked runs (optimal.SearchFrom) ask for the cheapest continuation below
// the best trace's size, shrinkSearchStates states each, four times as
// many in each later round; the first trace found becomes the best. The
// best trace itself, unedited, is searched from its cuts too, in the first
// round only and identSearchStates states each: the removal tier keeps the
// order of the events it leaves, and a cheaper route can leave the trace's
// early on (another member times out first). The searches run one after
// the other on one walker.

// shrinkSearches reports whether the pass applies: the best trace's runs
// fork.
func (m *minimizer) shrinkSearches(ctx context.Context) bool {
	return optimal.Forks(ctx, m.sys, m.snapshotBest()) == nil
}

// shrinkSearch runs one call of the pass on the best trace.
func (m *minimizer) shrinkSearch(ctx context.Context) error {
	base := m.snapshotBest()
	edits, _ := m.groupEdits(base, true)
	edits = append(edits, func(_ *fingerprint.Fingerprinter, p dpor.Plan) dpor.Plan { return p })
	bp := dpor.FromEvents(m.fp, base.Events)
	type search struct {
		pre        []record.Event
		cut, bound int
		ident      bool
	}
	var order []search
	for k, e := range edits {
		pre, err := m.followed(base, e(m.fp, bp))
		if err != nil {
			return fmt.Errorf("shrink search: %w", err)
		}
		first := 0
		for first < len(pre) && pre[first].Kind.IsExternal() {
			first++
		}
		for cut := len(pre); cut >= max(first, 1); cut-- {
			if bound := total(base) - cut - 1; bound >= 1 {
				order = append(order, search{pre, cut, bound, k == len(edits)-1})
			}
		}
	}
	slices.SortStableFunc(order, func(a, b search) int { return a.bound - b.bound })
	exhausted := make([]bool, len(order))
	states := shrinkSearchStates
	for round := 0; round < shrinkSearchRounds; round, states = round+1, states*4 {
		for i, s := range order {
			if exhausted[i] || s.ident && round > 0 {
				continue
			}
			left := (m.end() - m.steps.Load()) / searchStepsPerState
			if left <= 0 || ctx.Err() != nil {
				return ctx.Err()
			}
			n := states
			if s.ident {
				n = identSearchStates
			}
			t := &record.Trace{Header: base.Header, Events: s.pre[:s.cut]}
			t.Recount()
			res, err := optimal.SearchFrom(ctx, m.sys, t, s.cut, optimal.Config{
				Subsets: true, TotalBound: s.bound, MaxStates: int(min(left, int64(n))), Workers: 1})
			if err != nil {
				return fmt.Errorf("shrink search: cut %d: %w", s.cut, err)
			}
			m.steps.Add(int64(res.Steps) * searchStepCost)
			if res.Trace != nil && m.offer(res.Trace) {
				return nil
			}
			exhausted[i] = res.Exhausted
		}
	}
	return nil
}

// followed runs plan p from the start while its events apply and every
// delivery finds a pending message with its sender, receiver, timer and
// full fingerprint, and returns the events it ran (up to a violation). Its
// steps count.
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
