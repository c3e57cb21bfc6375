package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// stageMinimizer returns a minimizer whose best trace is the raft trace in
// path, set up as Run sets it up, with the default step budget and the
// given workers, for running one pass on it.
func stageMinimizer(t *testing.T, path string, workers int) *minimizer {
	t.Helper()
	tr, sys, err := record.ReadFile(path, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	m := &minimizer{sys: sys, opts: tr.Header.OptionMap(), seed: tr.Header.Seed, target: tr.Header.Violation.Fingerprint,
		cfg: Config{Workers: workers, MaxSchedules: 16, TFBScale: 100, Steps: DefaultSteps}, mode: dpor.TFB,
		fp: fingerprint.For(sys, nil), best: tr, maxComponents: map[string]int{},
		calls: map[string]int{}, left: map[string]*record.Trace{}, passStats: map[string]*PassStats{}, skip: map[string]bool{}, noStall: true}
	m.resolved, err = sys.Resolve(m.opts)
	require.NoError(t, err)
	for _, e := range tr.Events {
		if sh, ok := e.Msg.(record.Shrinkable); ok && e.Kind == record.Send {
			m.maxComponents[record.TypeName(e.Msg)] = max(m.maxComponents[record.TypeName(e.Msg)], sh.Components())
		}
	}
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
