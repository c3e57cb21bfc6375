package minimize

import (
	"context"
	"errors"

	"github.com/demi-project/demi/record"
)

// internalsFirst runs the internals-first pass, a second start
// (docs/minimization.md, "The searches"): from the trace after provenance,
// the removals with the internal events first, a fixed sequence of passes;
// its result is offered (or held aside) when it has fewer deliveries plus
// externals.
func (m *minimizer) internalsFirst(ctx context.Context) error {
	f := m.fork(m.afterProvenance)
	err := m.forkRemovals(ctx, f, true)
	// Only a result with fewer deliveries plus externals replaces the best
	// trace (not one lighter in contents alone), so that a trace both
	// orders minimize equally well keeps the result of the first.
	b := f.snapshotBest()
	if m.holding {
		m.aside[StageInternalsFirst] = b // offered when the search tier reaches the pass
	} else if total(b) < total(m.snapshotBest()) {
		m.offer(b)
	}
	return err
}

// forkRemovals runs the removal passes on the fork f, internal events
// before external ones or after them, and counts its work as m's.
func (m *minimizer) forkRemovals(ctx context.Context, f *minimizer, internalsFirst bool) error {
	first := []stage{
		{StageClockClusters, f.clockClusters},
		{StageDdminInternals, f.ddminInternals},
		{StageDdminExternalsWild, f.ddminExternalsWild},
	}
	if !internalsFirst {
		first = append(first[2:], first[:2]...)
	}
	err := f.run(ctx, append(first,
		stage{StageFifoInternals, f.fifoInternals},
		stage{StageShrinkContents, f.shrinkContents},
		stage{StageOneAtATime, f.oneAtATime}))
	m.steps.Store(f.steps.Load())
	m.schedules.Add(f.schedules.Load())
	return err
}

// fork returns a minimizer that starts from best and shares m's system,
// configuration and checkers (m waits while it runs). Its step budget is
// what m's running stage may still use.
func (m *minimizer) fork(best *record.Trace) *minimizer {
	f := &minimizer{sys: m.sys, opts: m.opts, resolved: m.resolved, seed: m.seed, target: m.target,
		cfg: m.cfg, mode: m.mode, fp: m.fp, checks: m.checks, tallies: m.tallies, checked: m.checked,
		maxComponents: m.maxComponents, shares: m.shares, dropped: m.dropped,
		start: m.start, best: best, noStall: true, stallCap: m.stallCapOf()}
	f.cfg.Progress = nil
	f.cfg.Steps = m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}

// stage is one step of a forked minimizer's fixed sequence: the pass it
// runs (with the share of the remaining steps the pass table gives it),
// and what it does.
type stage struct {
	name string
	run  func(ctx context.Context) error
}

// run runs stages on a forked minimizer, each with its share of the steps
// that remain; a stage whose share runs out ends there and the next one
// starts.
func (m *minimizer) run(ctx context.Context, stages []stage) error {
	for _, s := range stages {
		m.limit.Store(m.shareOf(m.shares[s.name]))
		if err := s.run(ctx); err != nil && !errors.Is(err, errStepBudget) {
			return err
		}
	}
	return nil
}
