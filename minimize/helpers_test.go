package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// stageMinimizer returns a minimizer whose best trace is the raft trace in
// path, set up as Run sets it up, with the default step budget and the
// given workers, for running one pass on it.
func stageMinimizer(t *testing.T, path string, workers int) *minimizer {
	t.Helper()
	return stageMinimizerOf(t, path, raft.System(), workers)
}

// stageMinimizerOf is stageMinimizer for a trace of sys.
func stageMinimizerOf(t *testing.T, path string, sys *record.System, workers int) *minimizer {
	t.Helper()
	tr, sys, err := record.ReadFile(path, record.NewCatalog(sys))
	require.NoError(t, err)
	m, err := newMinimizer(sys, tr, Config{Workers: workers, Steps: DefaultSteps})
	require.NoError(t, err)
	m.best, m.noStall = tr, true
	m.readInput(tr.Events)
	require.NoError(t, m.newChecks())
	return m
}

func tokenTrace(t *testing.T) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{"restore-token": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 20})
	require.NoError(t, err)
	require.NotNil(t, tr)
	return sys, tr
}

// ping is a message of the hand-built traces of the move tests.
type ping struct{ N int }
