package eval_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
)

// TestDPORStudyOnTokenRing runs the DPOR study alone on the token ring:
// every variant runs both passes, never grows the trace, and the results
// do not depend on how many variants run at once; the section renders.
func TestDPORStudyOnTokenRing(t *testing.T) {
	sys := tokenring.System()
	dir := t.TempDir()
	tr := ringTrace(t, sys, dir)
	run := func(workers int) *eval.Report {
		rep, err := eval.RunStudies(context.Background(), eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir,
			DPOR: &eval.DPORConfig{Schedules: 4, Workers: workers}}, nil)
		require.NoError(t, err)
		return rep
	}
	rep := run(1)
	require.Len(t, rep.DPOR, 1)
	row := rep.DPOR[0]
	require.Empty(t, row.Err)
	assert.Equal(t, "ring", row.Bug)
	assert.Equal(t, eval.Size{Deliveries: tr.Header.Deliveries, Externals: tr.Header.Externals}, row.Input)
	var names []string
	for _, v := range eval.DPORVariants(4) {
		names = append(names, v.Name)
	}
	require.Len(t, row.Runs, len(names))
	for i, r := range row.Runs {
		assert.Equal(t, names[i], r.Variant)
		ext, in := r.Externals, r.Internals
		assert.LessOrEqual(t, ext.Size.Deliveries+ext.Size.Externals, row.Input.Deliveries+row.Input.Externals, r.Variant)
		assert.LessOrEqual(t, in.Size.Deliveries+in.Size.Externals, ext.Size.Deliveries+ext.Size.Externals, r.Variant)
		assert.LessOrEqual(t, in.Size.Externals, ext.Size.Externals, "%s: the deliveries pass adds no external event", r.Variant)
		assert.Positive(t, ext.Checks, r.Variant)
		assert.LessOrEqual(t, ext.Reproduced, ext.Checks, r.Variant)
		assert.GreaterOrEqual(t, ext.Schedules, int64(ext.Checks), r.Variant)
		if r.Variant == "STSSched" || r.Variant == "STSSched+wild" {
			assert.Equal(t, int64(ext.Checks), ext.Schedules, "%s: one schedule per check", r.Variant)
			assert.Zero(t, ext.Backtracked+in.Backtracked, r.Variant)
		}
	}
	again := run(3)
	for i := range row.Runs {
		a, b := row.Runs[i], again.DPOR[0].Runs[i]
		a.Externals.Seconds, a.Internals.Seconds, b.Externals.Seconds, b.Internals.Seconds = 0, 0, 0, 0
		assert.Equal(t, a, b, "the results do not depend on the workers")
	}
	var md bytes.Buffer
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), "## DPOR study: STSSched against type-fingerprint backtracks")
	assert.Contains(t, md.String(), "| bug | input | STSSched | STSSched+wild | TFB | TFB+wild | TFB+wild+broad | TFB+wild deepest | TFB+wild distance |")
}

// TestDPORStudyFreshInput adds the bug's first fresh failing trace to the
// study: the first seed after the shipped one whose run breaks the same
// invariant, in its own row after the shipped ones, with its own total.
func TestDPORStudyFreshInput(t *testing.T) {
	sys := tokenring.System()
	dir := t.TempDir()
	tr := ringTrace(t, sys, dir)
	opts := record.Options{"restore-token": "true"}
	sc := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: tr.Header.Seed, MaxSteps: 200, MaxExternals: 10},
		Runs: 200, MinDeliveries: 20}
	cfg := eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir,
		DPOR: &eval.DPORConfig{Schedules: 4, Workers: 2,
			Fresh: []eval.FreshCase{{Bug: "ring", System: sys.Name, Options: opts, Search: sc}}}}
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.DPOR, 2)
	shipped, fresh := rep.DPOR[0], rep.DPOR[1]
	assert.Zero(t, shipped.Seed)
	require.Empty(t, fresh.Err)
	first, _, err := cfg.FirstFresh(context.Background(), cfg.DPOR.Fresh[0], 3000)
	require.NoError(t, err)
	assert.Greater(t, first.Header.Seed, tr.Header.Seed)
	assert.Equal(t, first.Header.Seed, fresh.Seed)
	assert.Equal(t, eval.Size{Deliveries: first.Header.Deliveries, Externals: first.Header.Externals}, fresh.Input)
	assert.Equal(t, fmt.Sprintf("ring, fresh seed %d", fresh.Seed), fresh.Label())
	require.Len(t, fresh.Runs, len(eval.DPORVariants(4)))
	var md bytes.Buffer
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), fmt.Sprintf("| ring, fresh seed %d | %s |", fresh.Seed, fresh.Input))
	assert.Contains(t, md.String(), "| **total, shipped traces** |")
	assert.Contains(t, md.String(), "| **total, fresh traces** |")
}
