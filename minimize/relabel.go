package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// The relabel stage turns a trace that breaks the target's invariant with
// other actors first into a shorter trace of the target violation, for
// systems that declare interchangeable actors (record.Symmetry).
//
// A trace's route may reach the same bug with another tuple of actors
// before it reaches the target's: Inv(a,c) before the target Inv(a,b).
// Everything after that point exists only because the fingerprint names
// b, and removals cannot take it away: a candidate that stops before b's
// state breaks does not reproduce the target. When the run's members are
// interchangeable, relabelling the trace's prefix up to that point (b and
// c exchanged in every event, message field and configuration) gives a
// run that breaks the target's invariant between the target's actors at
// the same point.
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
// The pass runs whenever the best trace changed since it last looked. Its
// replay of the best trace is counted in steps only when it finds a
// candidate; its checks are counted as every pass's. Candidates are
// checked in a fixed order with the first success winning (firstTrace),
// so the result does not depend on Workers.

// relabelCuts replays best exactly and returns the relabel pass's
// candidates, in the order they are checked, with the steps of the
// replay: for each violation other than the target, in the order the run
// reports them, and each relabelling Symmetry.Onto gives for it, best's
// prefix up to that violation's step relabelled, with its runs of starts
// and of external sends in the members' order first (when they are not
// already), then as it is.
func (m *minimizer) relabelCuts(ctx context.Context, best *record.Trace) (cuts [][]record.Event, steps int64, err error) {
	d, err := record.NewDriver(best.Setup(m.sys), best.Events, record.Follow{Want: record.Want(m.target)})
	if err != nil {
		return nil, 0, fmt.Errorf("relabel: replaying the best trace: %w", err)
	}
	seen := map[string]bool{}
	for {
		o, err := d.Next(ctx)
		if errors.Is(err, record.ErrScheduleEnd) || errors.Is(err, record.ErrHalted) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("relabel: replaying the best trace: %w", err)
		}
		steps++
		if o.Found || o.Divergence != nil || d.Stopped() {
			break
		}
		v := o.Violation
		if v == nil || seen[v.Fingerprint] {
			continue
		}
		seen[v.Fingerprint] = true
		cuts = append(cuts, m.ontoTarget(best.Events, best.Events[:o.Step+1], v.Fingerprint)...)
	}
	return cuts, steps, nil
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
// their configuration, in the order the input did (start a, b, c, not a,
// c, b); the relabel pass checks this
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
// reproduces the target, if it is smaller than the best trace.
func (m *minimizer) relabel(ctx context.Context, cuts [][]record.Event) error {
	_, tr, err := m.first(ctx, len(cuts), dpor.TFB, m.cfg.MaxSchedules, func(fp *fingerprint.Fingerprinter, i int) (dpor.Plan, bool) {
		return dpor.FromEvents(fp, cuts[i]), true
	})
	if err == nil && tr != nil {
		m.offer(tr)
	}
	return err
}
