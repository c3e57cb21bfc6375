package minimize

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// The resample stage looks for another schedule of the best trace's
// external events at random, shorter than the best trace, and restarts
// the removals from it.
//
// Every other stage starts from the best trace's schedule: a removal, a
// move or an exact search near it. When the first pass has already fixed
// the route (which terms happen, who votes twice), a much shorter route
// of the same bug may share nothing with it but the external events.
// Raft's raft-56 unseen fuzz seed 50186 ends the late stages at 63
// deliveries (E:10): six terms, each of two leaders needs both other
// members' votes, and no removal, reorder, capped exact search (up to
// five times the step budget) or late stage finds a shorter one, while
// random runs of its ten external events that stop after 62 deliveries
// end in the same bug after a few thousand runs, on shorter routes of
// their own, which the removal stages and shrink-search then take to the
// bug's best known size.
//
// The stage runs random runs of the best trace's external events
// (record.FuzzConfig.Script: the external events in their order, random
// deliveries and timers in between, as demi fuzz does), each stopped after
// one delivery fewer than the best trace has. A run that ends in the
// target violation is checked as a candidate (its schedule followed
// exactly); one that ends in the target's invariant with other actors is
// checked relabelled by the symmetries that map its violation onto the
// target (record.Symmetry.Onto, as the relabel stage does), for systems
// that declare one. A candidate that reproduces the target is smaller
// than the best trace by construction; it becomes the best trace, the
// removal stages of a round re-minimize it (followUp), and the stage goes
// on from the new best trace while its allowance lasts.
//
// The runs' seeds are resampleSeed, resampleSeed+1, ... in one sequence
// for the whole stage, and each run's deliveries and external events
// count as steps: the result depends on the input and the step budget
// alone, not on Workers or time. The stage runs once, after the late
// stages, on an allowance of its own (Config.Steps/resampleShare), and,
// when it found a trace, shrink-search runs again on the result
// (shrink-search-2): the new route may lose a configuration component
// the old one needed. Running last, it can only make the result
// smaller: every stage before it runs as without it. On a trace already
// at its bug's optimum it finds nothing and spends that allowance.

// resampleSeed is the seed of the stage's first random run.
const resampleSeed = 1

// resampleChunk is how many random runs the stage makes between two looks
// at its allowance.
const resampleChunk = 256

// resample runs the resample stage on the best trace.
func (m *minimizer) resample(ctx context.Context) error {
	if m.resampleSeed == 0 {
		m.resampleSeed = resampleSeed
	}
	return m.offerEach(ctx, "resample", func(ctx context.Context, base *record.Trace) (*record.Trace, error) {
		return m.resampleFrom(ctx, base, &m.resampleSeed)
	})
}

// resampleFrom makes random runs of base's external events, from *seed
// on (which it advances), until one gives a trace of the target smaller
// than base, which it returns, or the allowance is spent (nil).
func (m *minimizer) resampleFrom(ctx context.Context, base *record.Trace, seed *uint64) (*record.Trace, error) {
	var script []record.Event
	for _, e := range base.Events {
		if e.Kind != record.Deliver {
			script = append(script, e)
		}
	}
	maxSteps := base.Header.Deliveries - 1
	if maxSteps < 1 || len(script) == 0 {
		return nil, nil
	}
	for m.steps.Load() < m.end() {
		var deliveries int64
		cfg := record.SearchConfig{
			FuzzConfig: record.FuzzConfig{
				Seed:         *seed,
				MaxSteps:     maxSteps,
				ExternalProb: min(1, 2*float64(len(script))/float64(maxSteps)),
				Script:       script,
			},
			Runs:     resampleChunk,
			Progress: func(p record.SearchProgress) { deliveries = p.Deliveries },
		}
		found, runs, err := record.Search(ctx, m.sys, m.resolved, cfg)
		m.steps.Add(deliveries + int64(runs*len(script)))
		*seed += uint64(runs)
		if err != nil {
			return nil, fmt.Errorf("resample: %w", err)
		}
		if found == nil {
			continue
		}
		cands := m.resampleCandidates(found)
		if len(cands) == 0 {
			continue
		}
		_, tr, err := m.first(ctx, len(cands), dpor.TFB, 1, func(fp *fingerprint.Fingerprinter, i int) (dpor.Plan, bool) {
			return dpor.FromEvents(fp, cands[i]), true
		})
		if err != nil {
			return nil, err
		}
		if tr != nil && smaller(tr, base) {
			return tr, nil
		}
	}
	return nil, nil
}

// resampleCandidates returns the schedules to check for a random run that
// ended in a violation: its events when the violation is the target;
// relabelled by each symmetry that maps it onto the target (members'
// order first, as the relabel stage does) when it is another; none when
// the system declares no symmetry or none maps it.
func (m *minimizer) resampleCandidates(run *record.Trace) [][]record.Event {
	v := run.Header.Violation
	if v == nil {
		return nil
	}
	if v.Fingerprint == m.target {
		return [][]record.Event{run.Events}
	}
	if m.sys.Symmetry == nil {
		return nil
	}
	return m.ontoTarget(run.Events, run.Events, v.Fingerprint)
}
