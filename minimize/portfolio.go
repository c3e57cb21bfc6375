package minimize

import (
	"context"

	"github.com/demi-project/demi/record"
)

// internalsFirst runs the internals-first pass, a second start
// (docs/minimization.md, "The searches"): from the trace after provenance,
// the removal tier once through with the internal events first
// (forkRemovals); its result is offered (or held aside) when it has fewer
// deliveries plus externals.
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

// forkRemovals runs the removal tier once through on the fork f, each
// pass called by the driver (call) with its share of the fork's steps, and
// counts f's work as m's. Its order: the table's from ddmin-externals-wild
// on (a fork starts after provenance, and ddmin-externals-wild does the
// work of the first ddmin-externals), or, internalsFirst, with the passes
// that remove groups of deliveries (clock-clusters, ddmin-internals) ahead
// of ddmin-externals-wild.
func (m *minimizer) forkRemovals(ctx context.Context, f *minimizer, internalsFirst bool) error {
	first := []string{StageDdminExternalsWild, StageClockClusters, StageDdminInternals}
	if internalsFirst {
		first = append(first[1:], first[0])
	}
	var err error
	for _, name := range append(first, StageFifoInternals, StageShrinkContents, StageOneAtATime) {
		if _, err = f.call(ctx, name); err != nil {
			break
		}
	}
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
		maxComponents: m.maxComponents, dropped: m.dropped, skip: m.skip,
		calls: map[string]int{}, left: map[string]*record.Trace{},
		start: m.start, best: best, noStall: true, stallCap: m.stallCapOf()}
	f.cfg.Progress = nil
	f.cfg.Steps = m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}
