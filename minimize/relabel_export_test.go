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
	var last *record.Trace
	if err := m.relabelStage(ctx, StageRelabel, &last, true); err != nil {
		return nil, "", err
	}
	name := ""
	if len(m.stages) > 0 {
		name = m.stages[len(m.stages)-1].Name
	}
	return m.snapshotBest(), name, nil
}
