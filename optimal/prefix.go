package optimal

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
)

// A search from a prefix. SearchFrom keeps the first events of a trace as
// they are and searches only what comes after them: the schedules of the
// external events after the cut (with Subsets, of every subsequence of
// them) and of the deliveries enabled from the state the prefix reaches.
// It is the exact search of the schedules near a trace that the
// minimizer's search passes run (minimize/shrinksearch.go): cheap where a full
// search is not, because the prefix is run once and every state of the
// walk shares it.
//
// The reductions are those of Search, with one exception: the prune of
// states with more undelivered external messages than budget left
// (dominance.go) assumes every external message pending was sent by an
// external event the schedule could leave out, which a message sent in
// the prefix is not; it is off.

// SearchFrom looks for the cheapest schedule that starts with t's first
// cut events and reproduces t's violation. Its cost, which Config bounds
// as for Search, counts only the events after the cut: deliveries, plus
// external events with Subsets.
func SearchFrom(ctx context.Context, sys *record.System, t *record.Trace, cut int, cfg Config) (*Result, error) {
	return searchAfter(ctx, sys, t, cut, true, cfg)
}

// newSim returns a run of the search's setup after its prefix (see
// SearchFrom): the root of every walk.
func (s *search) newSim() (*record.Sim, error) {
	sim, err := s.setup.NewSim()
	if err != nil {
		return nil, err
	}
	for i, e := range s.prefix {
		if err := step(sim, e); err != nil {
			return nil, fmt.Errorf("replaying the prefix's event %d (%s): %w", i, e, err)
		}
	}
	if err := sim.ForkError(); err != nil {
		return nil, err
	}
	return sim, nil
}

// step runs e, an event of a recorded trace, in sim.
func step(sim *record.Sim, e record.Event) error {
	if e.Kind == record.Deliver {
		return sim.Deliver(e.ID)
	}
	return sim.Apply(e)
}

// Forks reports whether t's runs fork soundly (record.Sim.Fork): it replays
// t and runs each event in a fork of the run before it, so that every actor
// that takes a step is copied once; it returns the first fork error
// (record.Sim.ForkError), or nil. A system whose actors cannot be copied
// (a library's method values, see record.DeepCopier) must not be searched.
func Forks(ctx context.Context, sys *record.System, t *record.Trace) error {
	sim, err := t.Setup(sys).NewSim()
	if err != nil {
		return fmt.Errorf("optimal: %w", err)
	}
	for i, e := range t.Events {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := sim.Fork()
		if err := step(f, e); err != nil {
			return fmt.Errorf("optimal: replaying event %d (%s): %w", i, e, err)
		}
		if err := f.ForkError(); err != nil {
			return err
		}
		sim = f
	}
	return nil
}
