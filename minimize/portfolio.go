package minimize

import (
	"context"

	"github.com/demi-project/demi/record"
)

// internalsFirst runs the internals-first pass, a second start
// (docs/minimization.md, "The searches"): from the trace after provenance,
// a round of the removal tier in a fork (forkRemovals), the passes that
// remove groups of deliveries ahead of the others; its result is offered
// (or held aside) when it has fewer deliveries plus externals.
func (m *minimizer) internalsFirst(ctx context.Context) error {
	f := m.fork(m.afterProvenance)
	f.ahead = map[string]bool{StageClockClusters: true, StageDdminInternals: true}
	err := m.forkRemovals(ctx, f)
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

// forkRemovals runs one round of the driver's removal tier (round)
// on the fork f, and counts f's work as m's.
func (m *minimizer) forkRemovals(ctx context.Context, f *minimizer) error {
	_, err := f.round(ctx, Removal, false)
	m.steps.Store(f.steps.Load())
	m.schedules.Add(f.schedules.Load())
	return err
}

// fork returns a minimizer that starts from best and shares m's system,
// configuration and checkers (m waits while it runs). Its step budget is
// what m's running stage may still use. It leaves out the passes m leaves
// out, and provenance and ddmin-externals as well: a fork starts after
// provenance, and ddmin-externals-wild does ddmin-externals' work there.
func (m *minimizer) fork(best *record.Trace) *minimizer {
	skip := map[string]bool{StageProvenance: true, StageDdminExternals: true}
	for p := range m.skip {
		skip[p] = true
	}
	f := &minimizer{sys: m.sys, opts: m.opts, resolved: m.resolved, seed: m.seed, target: m.target,
		cfg: m.cfg, mode: m.mode, fp: m.fp, checks: m.checks, tallies: m.tallies, checked: m.checked,
		maxComponents: m.maxComponents, dropped: m.dropped, skip: skip,
		calls: map[string]int{}, left: map[string]*record.Trace{},
		start: m.start, best: best, noStall: true, stallCap: m.stallCapOf()}
	f.cfg.Progress = nil
	f.cfg.Steps = m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}
