package minimize

import (
	"context"

	"github.com/demi-project/demi/record"
)

// RunRelabelStage runs the relabel stage alone on best, with workers
// checkers, and returns the best trace after it and the name of the stage
// row it recorded ("" when it found no candidate and did not run).
func RunRelabelStage(ctx context.Context, sys *record.System, best *record.Trace, workers int) (*record.Trace, string, error) {
	m, err := newStageMinimizer(sys, best, best, best.Header.OptionMap(), workers)
	if err != nil {
		return nil, "", err
	}
	if sys.Symmetry == nil {
		return best, "", nil // the pass does not apply
	}
	cuts, steps, err := m.relabelCuts(ctx, best)
	if err != nil {
		return nil, "", err
	}
	if len(cuts) > 0 {
		if err := m.runStage(ctx, StageRelabel, m.allowance(StageRelabel), func(ctx context.Context) error {
			m.steps.Add(steps)
			return m.relabel(ctx, cuts)
		}); err != nil {
			return nil, "", err
		}
	}
	name := ""
	if len(m.stages) > 0 {
		name = m.stages[len(m.stages)-1].Name
	}
	return m.snapshotBest(), name, nil
}
