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

// The relabel pass, for systems with interchangeable actors
// (record.Symmetry): a route may break the target's invariant with other
// actors first, Inv(a,c) before the target Inv(a,b), and what follows
// exists only so that b breaks. Relabelling the prefix up to that point (b
// and c exchanged in every event, message and configuration) gives a run
// that breaks the target there. The pass replays the best trace, and for
// every other violation the run reports first, in order, checks the prefix
// relabelled by each permutation Symmetry.Onto gives (its starts and
// external sends put back in the members' order first, then as it is); a
// check ends at the target violation, so a success is an exact trace of
// it. The replay counts as steps only when it finds a candidate.

// relabelCuts replays best exactly and returns the relabel pass's
// candidates, in order, and the steps of the replay.
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
// that differs), then as it is.
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
// of consecutive external sends, stably sorted by the members they
// concern, or nil when they are in that order already.
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
