package minimize

import (
	"context"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
)

// The shrink-search stage escapes a local minimum that content shrinking
// alone cannot: a smaller configuration that needs another schedule. The
// shrink-contents stage (and the reorder stage's shrink moves) removes one
// component from every message of a group of identical external messages
// (a member from the Bootstrap list every member receives) and checks the
// old schedule with wildcards and type-fingerprint backtracks. A smaller
// configuration changes the quorum arithmetic, so the old schedule often
// breaks early: in a 3-member cluster one vote elects the candidate that a
// 4-member cluster kept waiting, and the rest of the old schedule, built
// around that wait, no longer leads to the violation; backtracks that only
// reorder messages of one type do not find the other route.
//
// The stage keeps the part of the old schedule that the smaller
// configuration still follows and searches exactly for the rest. For every
// group edit of the best trace (groupEdits, several messages only), it
// runs the edited plan as long as every delivery finds its message (same
// sender, receiver, timer and full fingerprint, the shrunk contents
// included): that prefix is what the old schedule still does. From cuts of
// that prefix, from its end back to the first event after its leading
// external events, the optimal package's exact search over forked runs
// (optimal.SearchFrom, with the system's lower bound, as in the near stage)
// looks for the cheapest continuation that reproduces the violation with a
// total (the prefix's deliveries and externals plus the continuation's)
// strictly below the best trace's. The searches of every edit and cut are
// ordered by the cost they allow a continuation, smallest first (then by
// edit): a short continuation is cheap to find, whichever edit it follows.
// A search is capped in distinct states: shrinkSearchStates in the first
// pass over them, four times as many in each of the later passes
// (shrinkSearchPasses in all), which skip the searches an earlier pass
// exhausted. The first trace found
// becomes the best trace; it still starts and bootstraps every actor the
// input did, so the removal stages of a round (ddmin-externals,
// clock-clusters, ddmin-internals, one-at-a-time, at the first schedule
// budget per check) run on it, on an allowance of their own
// (Config.Steps/shrinkFollowShare): they drop the member the configuration
// no longer names, its start and bootstrap. Then the edits of the new best
// trace are searched again.
//
// The stage runs once, after the rounds and before retarget, for systems
// whose runs fork soundly (optimal.Forks), when the best trace has a group
// edit, with an allowance of its own (Config.Steps/shrinkSearchShare). Its
// searches run one after the other on one walker, each counting
// nearStepCost steps per forked step: the result depends on the step
// budget only, not on Workers or on time.

// shrinkSearchStates caps the distinct states of a search in the first
// pass; each later pass allows four times as many.
const shrinkSearchStates = 1000

// shrinkSearchPasses is the number of passes over the edits and cuts.
const shrinkSearchPasses = 3

// shrinkSearches reports whether the shrink-search stage applies to the
// best trace: it has a group edit and its runs fork soundly.
func (m *minimizer) shrinkSearches(ctx context.Context) bool {
	es, _ := m.groupEdits(m.snapshotBest(), true, false)
	return len(es) > 0 && m.nears(ctx)
}

// shrinkSearch runs the shrink-search stage on the best trace.
func (m *minimizer) shrinkSearch(ctx context.Context) error {
	return m.offerEach(ctx, "shrink search", m.shrinkSearchFrom)
}

// shrinkSearchFrom searches the group edits of base, pass by pass, and
// returns the first trace smaller than base found, or nil when none is
// within the allowance.
func (m *minimizer) shrinkSearchFrom(ctx context.Context, base *record.Trace) (*record.Trace, error) {
	edits, _ := m.groupEdits(base, true, false)
	return m.searchEdits(ctx, base, edits, base)
}

// searchEdits searches the edits of base (group edits), pass by pass, and
// returns the first trace smaller than than found, or nil when none is
// within the allowance.
func (m *minimizer) searchEdits(ctx context.Context, base *record.Trace, edits []edit, than *record.Trace) (*record.Trace, error) {
	bp := dpor.FromEvents(m.fp, base.Events)
	size := total(than)
	prefixes := make([][]record.Event, len(edits))
	for k, e := range edits {
		pre, err := m.followed(base, e(m.fp, bp))
		if err != nil {
			return nil, fmt.Errorf("shrink search: edit %d: %w", k, err)
		}
		prefixes[k] = pre
	}
	// The searches, by the cost they allow a continuation, smallest
	// first (then by edit, then from the later cut): a continuation that
	// is cheap to find comes first, whichever edit it belongs to.
	type search struct{ edit, cut, bound int }
	var order []search
	for k, pre := range prefixes {
		first := 0
		for first < len(pre) && pre[first].Kind.IsExternal() {
			first++
		}
		for cut := len(pre); cut >= max(first, 1); cut-- {
			// Every event of the prefix counts, and the result must be
			// smaller than than.
			if bound := size - cut - 1; bound >= 1 {
				order = append(order, search{k, cut, bound})
			}
		}
	}
	slices.SortStableFunc(order, func(a, b search) int { return a.bound - b.bound })
	exhausted := make([]bool, len(order))
	states := shrinkSearchStates
	for pass := 0; pass < shrinkSearchPasses; pass, states = pass+1, states*4 {
		for i, s := range order {
			if exhausted[i] {
				continue
			}
			t := &record.Trace{Header: base.Header, Events: prefixes[s.edit][:s.cut]}
			t.Recount()
			res, err := m.searchCut(ctx, t, s.cut, s.bound, int64(states))
			if err != nil {
				return nil, fmt.Errorf("shrink search: edit %d, cut %d: %w", s.edit, s.cut, err)
			}
			if res == nil {
				return nil, nil // the allowance is spent
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if res.Trace != nil && smaller(res.Trace, than) {
				return res.Trace, nil
			}
			exhausted[i] = res.Exhausted
		}
	}
	return nil, nil
}

// followed runs plan p from the start while its events apply and every
// delivery finds a deliverable message with its sender, receiver, timer
// and full fingerprint, and returns the events it ran: the prefix of p
// that an edited configuration still follows. It stops before an event
// that does not apply or find its message and after a violation. Its
// steps count toward the step budget.
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
			id, ok := record.MsgID(0), false
			buf = sim.Enabled(buf[:0])
			for _, pd := range buf {
				if pd.From == e.From && pd.To == e.To && pd.Timer == e.Timer && m.fp.Of(pd.Msg).Full == st.FP.Full {
					id, ok = pd.ID, true
					break
				}
			}
			if !ok || sim.Deliver(id) != nil {
				break
			}
		}
		if sim.Check() != nil {
			break
		}
	}
	return sim.Events(), nil
}
