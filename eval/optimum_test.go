package eval_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutlookExtrapolatesTheLastBounds(t *testing.T) {
	r := eval.OptimumRow{Input: eval.Size{Deliveries: 7, Externals: 3}, LowerBound: 4, Seconds: 600,
		Bounds: []eval.BoundProgress{{Bound: 0, Seconds: 1}, {Bound: 1, Seconds: 2}, {Bound: 2, Seconds: 4}, {Bound: 3, Seconds: 8}}}
	g, est, ok := r.Outlook()
	require.True(t, ok)
	assert.InDelta(t, 2.0, g, 1e-9)
	// Six bounds left (4 to 9), the first taking 8 s: 8+16+...+256.
	assert.InDelta(t, 504.0, est, 1e-9)
	assert.Equal(t, "not finished in 600s: every reproducer over its external events and their subsequences has at least 4 deliveries plus externals; "+
		"each bound took about 2.0x the time of the one before, so the 6 bounds left would take about 8 min", r.Verdict())

	r.Input.Deliveries = 40 // 39 bounds left (4 to 42), each twice the one before
	assert.Contains(t, r.Verdict(), "so the 39 bounds left would take over a thousand years")
	r.Input.Deliveries = 7

	r.Bounds = r.Bounds[:2]
	_, _, ok = r.Outlook()
	assert.False(t, ok, "two bounds give no growth")
	assert.Equal(t, "not finished in 600s: every reproducer over its external events and their subsequences has at least 4 deliveries plus externals", r.Verdict())
}

func TestOptimumStudyRecordsEveryBound(t *testing.T) {
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{"panic-on-lap": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 7, MaxSteps: 40, MaxExternals: 8}, Runs: 200})
	require.NoError(t, err)
	require.NotNil(t, tr)
	dir := t.TempDir()
	require.NoError(t, tr.WriteFile(filepath.Join(dir, "lap.min.trace")))
	cfg := eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir, Workers: 1, Bugs: []string{"lap"},
		Optimum: &eval.OptimumConfig{Budget: time.Minute}}
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Optimum, 1)
	row := rep.Optimum[0]
	require.NotNil(t, row.Found)
	require.Len(t, row.Bounds, row.LowerBound, "bounds 0 to the optimum's cost minus one")
	for i, b := range row.Bounds {
		assert.Equal(t, i, b.Bound)
		if i > 0 {
			assert.GreaterOrEqual(t, b.Seconds, row.Bounds[i-1].Seconds)
			assert.GreaterOrEqual(t, b.Expanded, row.Bounds[i-1].Expanded)
		}
	}
	assert.LessOrEqual(t, row.Bounds[len(row.Bounds)-1].Expanded, row.Expanded)
}
