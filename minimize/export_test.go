package minimize

import (
	"context"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// newStageMinimizer prepares a minimizer whose best trace is best, as Run
// does before the pipeline (input is the trace the minimization started
// from: its external events are what the moves may re-insert), to run one
// stage on it with its allowance.
func newStageMinimizer(sys *record.System, input, best *record.Trace, opts record.Options, workers int) (*minimizer, error) {
	m := &minimizer{sys: sys, opts: opts, seed: best.Header.Seed, target: best.Header.Violation.Fingerprint,
		cfg: Config{Workers: workers, Steps: DefaultStepsFor(input), MaxSchedules: 16, TFBScale: 100}, mode: dpor.TFB,
		fp: fingerprint.For(sys, nil), best: best}
	var err error
	if m.resolved, err = sys.Resolve(opts); err != nil {
		return nil, err
	}
	m.dropped = reinsertable(input.Events)
	m.calls, m.left, m.passStats, m.skip = map[string]int{}, map[string]*record.Trace{}, map[string]*PassStats{}, map[string]bool{}
	m.noStall = true
	if err := m.newChecks(); err != nil {
		return nil, err
	}
	return m, nil
}

// allowance is what one call of the pass named name may use from the
// start of a run: its share of the whole step budget.
func (m *minimizer) allowance(name string) int64 {
	return int64(float64(m.cfg.Steps) * lookupPass(name).Share)
}

// RunInsertStage runs the insert stage alone on best (input is the trace
// the minimization started from), with its allowance and workers checkers,
// and returns the best trace after it: the stages before insert may reach
// the routes a test of the stage is about.
func RunInsertStage(ctx context.Context, sys *record.System, input, best *record.Trace, workers int) (*record.Trace, error) {
	m, err := newStageMinimizer(sys, input, best, input.Header.OptionMap(), workers)
	if err != nil {
		return nil, err
	}
	m.limit.Store(m.allowance(StageInsert))
	if err := m.insert(ctx); err != nil {
		return nil, err
	}
	return m.snapshotBest(), nil
}

// RunInjectStage runs the inject pass alone on best, with its allowance
// and workers checkers, and returns the best trace after it.
func RunInjectStage(ctx context.Context, sys *record.System, best *record.Trace, workers int) (*record.Trace, error) {
	m, err := newStageMinimizer(sys, best, best, best.Header.OptionMap(), workers)
	if err != nil {
		return nil, err
	}
	m.limit.Store(m.allowance(StageInject))
	if err := m.inject(ctx); err != nil {
		return nil, err
	}
	return m.snapshotBest(), nil
}

// FullChecks returns cfg with every check run from the start and none
// remembered (cache.go): a run's result must not depend on it.
func FullChecks(cfg Config) Config {
	cfg.fullChecks = true
	return cfg
}
