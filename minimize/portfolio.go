package minimize

import (
	"context"
	"errors"

	"github.com/demi-project/demi/record"
)

// The first pass removes external events before internal ones: ddmin over
// the external events comes first, on a trace of a thousand deliveries.
// When the fuzzed run's log was filled by repeated elections, that first
// ddmin drops every client command (the elections still fill the log), and
// from then on no removal leads back to the route that uses client
// commands instead of elections: the rest of the pipeline ends in a local
// minimum several times the best known size. The internals-first stage is
// a second first pass, a fixed member of a portfolio of two orders: from
// the trace after provenance it removes internal events first (clock
// clusters, ddmin over the deliveries), so that whole elections go while
// the client commands are still there, then the external events (with
// wildcards), then the rest of the first pass. Its result replaces the
// best trace when it is smaller. Both passes are a fixed sequence of
// checks, so the choice does not depend on time or on the number of
// workers.
//
// The stage runs once, after the first reorder stage (which may use half
// of the steps that remain, so that this one has some): most traces are
// already as small by then as this pass gets them, and keep their result.

// total is the size traces are compared by first: deliveries plus
// externals.
func total(t *record.Trace) int { return t.Header.Deliveries + t.Header.Externals }

// internalsFirst runs the second first pass from start and offers its
// result.
func (m *minimizer) internalsFirst(start *record.Trace) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		f := m.fork(start)
		err := f.run(ctx, []stage{
			{StageClockClusters, 0.3, f.clockClusters},
			{StageDdminInternals, 0.5, f.ddminInternals},
			{StageDdminExternalsWild, 0.3, f.ddminExternalsWild},
			{StageFifoInternals, 0.2, f.fifoInternals},
			{StageShrinkContents, 0.3, f.shrinkContents},
			{StageOneAtATime, 1, f.oneAtATime},
		})
		m.steps.Store(f.steps.Load())
		m.schedules.Add(f.schedules.Load())
		// Only a result with fewer deliveries plus externals replaces
		// the best trace (not one lighter in contents alone), so that a
		// trace both orders minimize equally well keeps the result of the
		// first.
		if b, best := f.snapshotBest(), m.snapshotBest(); total(b) < total(best) {
			m.displaced, m.displacedReordered = best, m.reordered == best
			m.offer(b)
		}
		return err
	}
}

// fork returns a minimizer that starts from best and shares m's system,
// configuration and checkers (m waits while it runs). Its step budget is
// what m's running stage may still use.
func (m *minimizer) fork(best *record.Trace) *minimizer {
	f := &minimizer{sys: m.sys, opts: m.opts, resolved: m.resolved, seed: m.seed, target: m.target,
		cfg: m.cfg, mode: m.mode, strat: m.strat, fp: m.fp, checks: m.checks, tallies: m.tallies, checked: m.checked,
		maxComponents: m.maxComponents, escalation: 1, dropped: m.dropped,
		start: m.start, budget: m.budget, best: best, noStall: true, stallCap: m.stallCapOf()}
	f.cfg.Progress = nil
	f.cfg.Steps = m.limit.Load()
	f.steps.Store(m.steps.Load())
	return f
}

// stage is one step of a forked minimizer's fixed sequence: its name, the
// share of the remaining step budget it may use, and what it does.
type stage struct {
	name  string
	share float64
	run   func(ctx context.Context) error
}

// run runs stages on a forked minimizer, each with its share of the steps
// that remain; a stage whose share runs out ends there and the next one
// starts.
func (m *minimizer) run(ctx context.Context, stages []stage) error {
	for _, s := range stages {
		m.limit.Store(m.shareOf(s.share))
		if err := s.run(ctx); err != nil && !errors.Is(err, errStepBudget) {
			return err
		}
	}
	return nil
}
