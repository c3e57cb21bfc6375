package minimize

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
)

// The trace internals-first displaced, searched with a smaller
// configuration that keeps the named actors.
//
// internals-first (portfolio.go) may replace the main line's best trace
// by one whose content shrinking dropped an actor the violation names
// from the configuration (a Bootstrap member list): the drop that keeps
// the old schedule is the one that leaves the actor running as an
// outsider, which counts itself as one more member, so its quorum
// arithmetic, and the schedule, stay as they were. The replacement is
// smaller, but the named actor can then lead only as an outsider, with
// more votes than a member needs, and no schedule search can list it
// again: the late stages keep the external contents (near, insert) or
// check the old schedule (the stand-in moves, standin.go).
//
// raft-56's unseen fuzz seed 30214 is the example. The main line ends
// the rounds at 29 deliveries (E:8) with four-member lists, where raft-1
// and raft-3 both lead term 3, each with three votes; internals-first
// ends at 26 (E:8) with the lists [raft-2 raft-3 raft-4], and raft-1, one
// of the two leaders the violation names, an outsider that still needs
// three votes. The rounds take that to 25 (E:8), and `demi optimal`
// proves nothing of 25 events or fewer exists with its external events
// (--subsets included). The displaced 29-trace's group edit that drops
// raft-2, its schedule followed as far as it goes and an exact search
// from a cut of that prefix, gives 16 deliveries (E:6): raft-2 never
// acts, and its start and bootstrap go too.
//
// So the shrink-search-displaced stage runs once, after shrink-search,
// when internals-first displaced a trace whose configuration messages
// name every actor the violation names while the best trace's leave one
// of them out: shrink-search's searches (shrinksearch.go) on the
// displaced trace, with its group edits that keep naming every named
// actor, each search bounded so that only a trace smaller than the best
// trace is found. A trace found becomes the best trace, and the removal
// stages of a round follow it, as after shrink-search. Its allowance is
// what remains of the step budget when the rounds end, and at least
// shrink-search's (a tenth of the step budget). The stage is a fixed
// sequence of searches on one walker, counted in steps, so the result
// does not depend on time or on Workers; it costs nothing on traces
// whose rounds internals-first did not change, or changed without
// dropping a named actor from the configuration.

// shrinkDisplaces reports whether the shrink-search-displaced stage
// applies: internals-first displaced a trace that names every actor the
// violation names in its configuration messages, the best trace leaves
// one of them out, the displaced trace has a group edit that keeps them,
// and the runs fork soundly.
func (m *minimizer) shrinkDisplaces(ctx context.Context) bool {
	d, best := m.displaced, m.snapshotBest()
	if d == nil || !m.leavesOutNamed(best) || m.leavesOutNamed(d) {
		return false
	}
	es, _ := m.groupEdits(d, true, true)
	return len(es) > 0 && m.nears(ctx)
}

// leavesOutNamed reports whether a configuration message of t (an
// external Shrinkable message sent to several actors with the same
// contents) does not name an actor t's violation names.
func (m *minimizer) leavesOutNamed(t *record.Trace) bool {
	named := m.namedMembers(t)
	_, groups := m.groupEdits(t, true, false)
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		if _, ok := t.Events[g[0]].Msg.(record.Shrinkable); !ok {
			continue
		}
		text := fmt.Sprint(t.Events[g[0]].Msg)
		for _, id := range named {
			if !mentions(text, id) {
				return true
			}
		}
	}
	return false
}

// shrinkSearchDisplaced runs the shrink-search-displaced stage: the
// searches of the displaced trace's group edits that keep the named
// actors, for a trace smaller than the best.
func (m *minimizer) shrinkSearchDisplaced(ctx context.Context) error {
	d := m.displaced
	edits, _ := m.groupEdits(d, true, true)
	tr, err := m.searchEdits(ctx, d, edits, m.snapshotBest())
	if err != nil || tr == nil {
		return err
	}
	if !m.offer(tr) {
		return fmt.Errorf("internal error: the displaced shrink search's trace (%d deliveries, E:%d) is not smaller than the best",
			tr.Header.Deliveries, tr.Header.Externals)
	}
	return nil
}
