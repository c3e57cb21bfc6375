package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/perm"
	"github.com/demi-project/demi/record"
)

// The relabel stage turns a trace that breaks the target's invariant with
// other actors first into a shorter trace of the target violation, for
// systems that declare interchangeable actors (record.Symmetry).
//
// A trace's route may reach the same bug with another tuple of actors
// before it reaches the target's: Raft's LogMatching(raft-1,raft-3)
// before the target LogMatching(raft-1,raft-2). Everything after that
// point exists only because the fingerprint names raft-2, and removals
// cannot take it away: a candidate that stops before raft-2's log breaks
// does not reproduce the target. When the run's members are
// interchangeable, relabelling the trace's prefix up to that point
// (raft-2 and raft-3 exchanged in every event, message field and
// Bootstrap list) gives a run that breaks the target's invariant between
// the target's actors at the same point.
//
// The stage replays the best trace exactly and notes every violation
// other than the target that the run reports before the target (each
// fingerprint once, at its first step). For each, in order, it asks the
// system's symmetry for the relabellings that map that fingerprint onto
// the target and are symmetries of the trace's initial configuration
// (Symmetry.Onto: the actors the fingerprints name mapped onto each
// other, as few other actors moved as possible), and checks the
// relabelled prefix, cut at that step, as a candidate (a TFB check, whose
// first schedule follows the relabelled prefix as it is), its runs of
// consecutive starts and of consecutive external sends first put back in
// the members' order (memberOrdered), then as it is. A check keeps
// the run only up to the first step at which the target violation occurs,
// exactly, so a success is a trace of the target fingerprint, exact and
// replayable like every check's, and it is kept when it is smaller. The
// removal rounds then go on from it.
//
// An invariant reports one violation per step, so another tuple may
// break at the target's own step, unreported; the stage's last look
// (before round-form) then also tries the prefix up to the target's step
// relabelled by each symmetry that maps such a violation onto the target
// (sameStep), as a move: checked, followed by a descent, kept when the
// descent ends smaller.
//
// The stage runs at the start of every round, once after the rounds and
// once more before round-form, whenever the best trace changed since it
// last looked, on an allowance of its own. Its replay of the best trace
// is counted in steps only when it finds a candidate and the stage runs
// (a replay that finds none costs one run of the best trace, unrecorded,
// and the pipeline goes on as without the stage); its checks are counted
// as every stage's. Candidates are checked in a fixed order
// with the first success winning (firstTrace), so the result does not
// depend on Workers.

// relabelPerms caps the relabellings tried per violation.
const relabelPerms = 4

// relabelCuts replays best exactly and returns the relabel stage's
// candidates, in the order they are checked, with the steps of the
// replay: for each violation other than the target, in the order the run
// reports them, and each relabelling Symmetry.Onto gives for it, best's
// prefix up to that violation's step relabelled, with its runs of starts
// and of external sends in the members' order first (when they are not
// already), then as it is (cuts); then the same for the violations that
// may occur at the target's own step (same, see sameStep).
func (m *minimizer) relabelCuts(ctx context.Context, best *record.Trace) (cuts, same [][]record.Event, steps int64, err error) {
	sym := m.sys.Symmetry
	d, err := record.NewDriver(best.Setup(m.sys), best.Events, record.Follow{Want: record.Want(m.target)})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("relabel: replaying the best trace: %w", err)
	}
	members := m.sys.Members(m.resolved)
	seen := map[string]bool{}
	relabelled := func(prefix []record.Event, from string) [][]record.Event {
		return m.ontoTarget(best.Events, prefix, from)
	}
	for {
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) || errors.Is(err, record.ErrHalted) {
			break
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("relabel: replaying the best trace: %w", err)
		}
		steps++
		if o.Found {
			for _, fp := range sameStep(sym, members, m.target) {
				if !seen[fp] {
					same = append(same, relabelled(best.Events[:o.Step+1], fp)...)
				}
			}
		}
		if o.Found || o.Divergence != nil || d.Stopped() {
			break
		}
		v := o.Violation
		if v == nil || seen[v.Fingerprint] {
			continue
		}
		seen[v.Fingerprint] = true
		cuts = append(cuts, relabelled(best.Events[:o.Step+1], v.Fingerprint)...)
	}
	return cuts, same, steps, nil
}

// sameStep returns the fingerprints the target's violation takes under
// the relabellings of members (each once, the target left out, in the
// order of the permutations, members' order first): the violations of
// the same invariant with other actors, which may break at the target's
// step too without the run reporting them (an invariant reports one
// violation per step).
//
// The relabel stage checks best's prefix up to the target's step
// relabelled by each symmetry that maps such a violation onto the target,
// as a move (with its descent, reorder.go): when the other violation did
// break at that step, the relabelled run breaks the target there, along
// the other violation's route, and the descent removes what only the
// target's old route needed. On raft-58b unseen fuzz seed 7191 the late
// stages end at 27 deliveries (E:8) with LogMatching(raft-1,raft-3), where
// LogMatching(raft-1,raft-4) breaks at the same step on a route 6
// deliveries shorter: raft-3 must copy an entry from raft-4, raft-4 need
// not copy raft-3's.
func sameStep(sym *record.Symmetry, members []record.ActorID, target string) []string {
	var out []string
	seen := map[string]bool{target: true}
	for _, order := range permutationsOf(len(members)) {
		if fp, ok := sym.Violation(target, permOf(members, order)); ok && !seen[fp] {
			seen[fp] = true
			out = append(out, fp)
		}
	}
	return out
}

// maxSameStepMembers bounds the members sameStep permutes (n! of them).
const maxSameStepMembers = 6

// permOf returns the permutation of members that maps members[i] to
// members[order[i]].
func permOf(members []record.ActorID, order []int) record.Perm {
	p := record.Perm{}
	for i, k := range order {
		p[members[i]] = members[k]
	}
	return p
}

// permutationsOf returns the permutations of 0..n-1 in lexicographic
// order, the identity first (none for n > maxSameStepMembers).
func permutationsOf(n int) [][]int {
	if n > maxSameStepMembers {
		return nil
	}
	return perm.Orders(n)
}

// ontoTarget returns prefix relabelled by each symmetry of the run of
// events that maps violation from onto the target (Symmetry.Onto, at most
// relabelPerms), each in the members' order first (memberOrdered, when
// that differs), then as it is: the relabel stage's candidates, and the
// resample stage's for a run that broke the target's invariant with
// other actors. The system must declare a symmetry.
func (m *minimizer) ontoTarget(events, prefix []record.Event, from string) [][]record.Event {
	sym := m.sys.Symmetry
	members := m.sys.Members(m.resolved)
	var out [][]record.Event
	for _, p := range sym.Onto(m.resolved, members, events, from, m.target, relabelPerms) {
		raw := sym.Relabel(prefix, p)
		if c := memberOrdered(raw, members); c != nil {
			out = append(out, c)
		}
		out = append(out, raw)
	}
	return out
}

// memberOrdered returns events with every run of consecutive starts, and
// every run of consecutive external sends, put in the order of the
// members they concern (stable), or nil when they are in that order
// already. A relabelled trace then starts its members, and sends them
// their configuration, in the order the input did (start raft-1, raft-2,
// raft-3, not raft-1, raft-3, raft-2); the relabel stage checks this
// candidate first and the relabelled trace as it is after it.
func memberOrdered(events []record.Event, members []record.ActorID) []record.Event {
	rank := func(e *record.Event) int {
		id := e.To
		if e.Kind == record.Start {
			id = e.Actor
		}
		return slices.Index(members, id)
	}
	var out []record.Event
	for i := 0; i < len(events); {
		kind := events[i].Kind
		j := i + 1
		if kind == record.Start || kind == record.Send {
			for j < len(events) && events[j].Kind == kind {
				j++
			}
		}
		run := events[i:j]
		if !slices.IsSortedFunc(run, func(a, b record.Event) int { return rank(&a) - rank(&b) }) {
			if out == nil {
				out = slices.Clone(events)
			}
			slices.SortStableFunc(out[i:j], func(a, b record.Event) int { return rank(&a) - rank(&b) })
		}
		i = j
	}
	return out
}

// relabel checks the candidates cuts in order and keeps the first that
// reproduces the target, if it is smaller than the best trace; when none
// does, it tries the candidates same in order as moves (check and
// descent, tryMove) and keeps the first whose descent ends smaller than
// best.
func (m *minimizer) relabel(ctx context.Context, best *record.Trace, cuts, same [][]record.Event) error {
	if len(cuts) > 0 {
		_, tr, err := m.first(ctx, len(cuts), dpor.TFB, m.cfg.MaxSchedules, func(fp *fingerprint.Fingerprinter, i int) (dpor.Plan, bool) {
			return dpor.FromEvents(fp, cuts[i]), true
		})
		if err != nil {
			return err
		}
		if tr != nil {
			m.offer(tr)
			return nil
		}
	}
	_, tr, err := m.firstTrace(ctx, len(same), reorderChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		return m.tryMove(ctx, c, best, dpor.FromEvents(c.Fingerprinter(), same[i]))
	})
	if err != nil || tr == nil {
		return err
	}
	m.offer(tr)
	return nil
}
