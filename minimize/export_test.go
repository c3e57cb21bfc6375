package minimize

import (
	"context"

	"github.com/demi-project/demi/record"
)

// newStageMinimizer prepares a minimizer whose best trace is best, as Run
// does before the pipeline (input is the trace the minimization started
// from: its external events are what the moves may re-insert), to run one
// stage on it with its allowance.
func newStageMinimizer(sys *record.System, input, best *record.Trace, workers int) (*minimizer, error) {
	m, err := newMinimizer(sys, best, Config{Workers: workers, Steps: DefaultStepsFor(input)})
	if err != nil {
		return nil, err
	}
	m.best, m.dropped, m.noStall = best, reinsertable(input.Events), true
	return m, m.newChecks()
}

// allowance is what one call of the pass named name may use from the
// start of a run: its share of the whole step budget.
func (m *minimizer) allowance(name string) int64 {
	return int64(float64(m.cfg.Steps) * passNamed(m.table, name).Share)
}

// RunInjectStage runs the inject pass alone on best, with its allowance
// and workers checkers, and returns the best trace after it.
func RunInjectStage(ctx context.Context, sys *record.System, best *record.Trace, workers int) (*record.Trace, error) {
	m, err := newStageMinimizer(sys, best, best, workers)
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
