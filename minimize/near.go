package minimize

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// The near stage searches exactly the schedules near the best trace. It
// keeps a prefix of the best trace and asks the optimal package's search
// (optimal.SearchFrom: forked runs, states identified by a hash of every
// actor and the messages in flight, commutation, leaf checks, the
// system's lower bound when it has one) for the
// cheapest schedule after it that reproduces the violation: every order
// of the deliveries enabled from the state after the prefix and of the
// external events after the cut, each of which may also be left out, with
// a cost (deliveries plus external events after the cut) strictly below
// the suffix it would replace. The insert stage searches suffixes too,
// by replaying each state from the start, up to a cost of 6; a forked
// search goes deeper for the same work, so the near stage finds suffixes
// of cost 7 or 8 that the other stages' removals and moves do not reach.
//
// The cuts are tried from the end of the trace back to the first event
// after the leading starts; the first cut whose search finds a smaller
// trace wins, it becomes the best trace, and the cuts start again from its
// end. Each search is capped at nearStates distinct states (and at what
// is left of the allowance); a search that reaches its cap has found
// nothing cheaper within what it covered, and the next cut is tried.
//
// The stage runs only for systems whose runs fork soundly (optimal.Forks:
// every actor can be copied; the etcd raft actors cannot), once, after
// the insert stage, with an allowance of its own (Config.Steps/nearShare).
// A forked step, hashing included, costs about as much as nearStepCost
// replayed events (more when the system supplies a lower bound, which is
// computed at every state the search expands but prunes most of them), so
// each step of the search counts nearStepCost steps.
// The searches run one after the other on one walker, each capped in
// states: the result depends on the step budget only, not on Workers or
// on time. A search may start while the allowance lasts. Its cap is
// counted in states, and what was left of the allowance is converted to
// states at nearStepCost steps each, while a state's expansion takes
// several forked steps, each counted nearStepCost, so a search can
// overrun the allowance several times: on raft-56 unseen fuzz seed 30214 one
// search took 12.4 M steps on an allowance of 2 M. Not yet bounded in
// steps.

// nearStepCost is what one step of the forked search counts in the step
// budget.
const nearStepCost = 10

// nearStates caps the distinct states of the search at one cut.
const nearStates = 100_000

// near runs the near stage on the best trace.
func (m *minimizer) near(ctx context.Context) error {
	return m.offerEach(ctx, "near search", m.nearCuts)
}

// offerEach offers the best trace's successors from next, one after the
// other, until next finds none: what a stage built on exact searches does
// (near, shrink-search). Each successor must be smaller than the best
// trace (next promises it; anything else is an internal error, named by
// what). after, when not nil, runs after each success.
func (m *minimizer) offerEach(ctx context.Context, what string, next func(context.Context, *record.Trace) (*record.Trace, error)) error {
	tr, err := next(ctx, m.snapshotBest())
	if err != nil || tr == nil {
		return err
	}
	if !m.offer(tr) {
		return fmt.Errorf("internal error: the %s's trace (%d deliveries, E:%d) is not smaller than the best",
			what, tr.Header.Deliveries, tr.Header.Externals)
	}
	return nil
}

// searchCut runs the exact search after cut of t (optimal.SearchFrom over
// the pending deliveries and subsets of the external events after cut, on
// one walker) for a continuation of cost at most bound, capped at states
// distinct states and at what is left of the allowance; each of its steps
// counts nearStepCost steps. It returns a nil result when the allowance is
// spent. The caller checks ctx after it.
func (m *minimizer) searchCut(ctx context.Context, t *record.Trace, cut, bound int, states int64) (*optimal.Result, error) {
	left := (m.end() - m.steps.Load()) / nearStepCost
	if left <= 0 {
		return nil, nil
	}
	res, err := optimal.SearchFrom(ctx, m.sys, t, cut, optimal.Config{
		Subsets: true, TotalBound: bound, MaxStates: int(min(left, states)), Workers: 1})
	if err != nil {
		return nil, err
	}
	m.steps.Add(int64(res.Steps) * nearStepCost)
	return res, nil
}

// nears reports whether the near stage applies: the best trace's runs
// fork soundly (optimal.Forks).
func (m *minimizer) nears(ctx context.Context) bool {
	return optimal.Forks(ctx, m.sys, m.snapshotBest()) == nil
}

// nearCuts searches base's cuts from the end back, and returns the first
// smaller trace found, or nil when none is within the allowance.
func (m *minimizer) nearCuts(ctx context.Context, base *record.Trace) (*record.Trace, error) {
	for _, cut := range insertCuts(base.Events) {
		cost := len(base.Events) - cut
		if cost < 2 {
			continue // nothing is cheaper than one event
		}
		res, err := m.searchCut(ctx, base, cut, cost-1, nearStates)
		if err != nil {
			return nil, fmt.Errorf("near: cut %d: %w", cut, err)
		}
		if res == nil {
			return nil, nil // the allowance is spent
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if res.Trace != nil && smaller(res.Trace, base) {
			return res.Trace, nil
		}
	}
	return nil, nil
}
