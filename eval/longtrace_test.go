package eval_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongTracesTokenring runs the whole long-trace study on tokenring: the
// first seed from 1 whose run fails with the shipped invariant after the
// minimum, minimized, replayed, minimized again and cancelled, and
// rendered.
func TestLongTracesTokenring(t *testing.T) {
	sys := tokenring.System()
	cat := record.NewCatalog(sys)
	opts := record.Options{"restore-token": "true"}
	shippedCfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 12}
	shipped, _, err := record.Search(context.Background(), sys, opts, shippedCfg)
	require.NoError(t, err)
	require.NotNil(t, shipped)
	dir := t.TempDir()
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.trace")))
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.min.trace")))

	long := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 900, MaxExternals: 12}, MinDeliveries: 300}
	cfg := eval.Config{Catalog: cat, TraceDir: dir, Workers: 1, Log: func(string, ...any) {}}
	cfg.Long = &eval.LongConfig{Cases: []eval.LongCase{{Bug: "tok", System: sys.Name, Options: opts, Search: long}},
		Budget: 20 * time.Second, FuzzBudget: time.Minute, CancelAfter: time.Nanosecond, Replays: 4, N: 2}
	updates := 0
	cfg.OnUpdate = func(*eval.Report) error { updates++; return nil }
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Long, 2)
	assert.Equal(t, 3, updates, "after each trace, and at the end")
	row := rep.Long[0]
	require.Empty(t, row.Err)
	require.Empty(t, rep.Long[1].Err)
	assert.Greater(t, rep.Long[1].Seed, row.Seed, "the second trace: the next failing seed")
	assert.Equal(t, int(rep.Long[1].Seed-row.Seed), rep.Long[1].SeedsTried, "seeds fuzzed since the first")

	// The row's trace is the first failing run of at least 300 deliveries
	// from seed 1: search again, one seed at a time.
	var first *record.Trace
	for seed := uint64(1); first == nil && seed <= row.Seed; seed++ {
		sc := long
		sc.Seed, sc.Runs = seed, 1
		first, _, err = record.Search(context.Background(), sys, opts, sc)
		require.NoError(t, err)
	}
	require.NotNil(t, first)
	assert.Equal(t, first.Header.Seed, row.Seed)
	assert.Equal(t, int(row.Seed), row.SeedsTried)
	assert.Equal(t, eval.Size{Deliveries: first.Header.Deliveries, Externals: first.Header.Externals}, row.Input)
	assert.GreaterOrEqual(t, row.Input.Deliveries, 300)
	assert.Less(t, row.Result.Deliveries, row.Input.Deliveries)
	shippedSize := eval.Size{Deliveries: shipped.Header.Deliveries, Externals: shipped.Header.Externals}
	assert.Equal(t, shippedSize, row.Shipped)
	assert.InDelta(t, float64(row.Result.Deliveries+row.Result.Externals)/float64(shippedSize.Deliveries+shippedSize.Externals), row.Ratio, 1e-9)
	assert.Equal(t, 4, row.Replays)
	assert.Equal(t, 4, row.Replayed)
	assert.Greater(t, row.PeakMiB, 1.0)
	require.NotNil(t, row.Cancel)
	assert.False(t, row.Cancel.Finished, "cancelled after a nanosecond")

	var md bytes.Buffer
	rep.Rows = []eval.Row{{Bug: "tok"}}
	require.NoError(t, eval.Markdown(&md, rep))
	out := md.String()
	assert.Contains(t, out, "## Long traces: failing runs of a long fuzz campaign")
	assert.Contains(t, out, "- tok: `demi fuzz --system tokenring --mode walk --bug restore-token --max-steps 900 --externals 12 --timer-prob 0 --check-every 0 --min-deliveries 300`")
	assert.Contains(t, out, fmt.Sprintf("| tok | %d | %d (", row.Seed, row.SeedsTried))
	assert.Contains(t, out, fmt.Sprintf("| %s | %s | %s | %.2f |", row.Input, row.Result, row.Shipped, row.Ratio))
	assert.Contains(t, out, "| every result replays | yes | met |")
	assert.Contains(t, out, "the first 2 runs that break the shipped trace's invariant after at least the target length are minimized")
}

// TestLongTracesReportsAFuzzFailure: a bug whose runs never fail after the
// minimum gets a row that says so, and the study goes on.
func TestLongTracesReportsAFuzzFailure(t *testing.T) {
	sys := tokenring.System()
	dir := t.TempDir()
	opts := record.Options{"restore-token": "true"}
	shipped, _, err := record.Search(context.Background(), sys, opts,
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 12})
	require.NoError(t, err)
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.trace")))
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.min.trace")))
	cfg := eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir, Workers: 1, Log: func(string, ...any) {}}
	never := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 50, MaxExternals: 2}, MinDeliveries: 1000}
	cfg.Long = &eval.LongConfig{Cases: []eval.LongCase{{Bug: "tok", System: sys.Name, Options: opts, Search: never}},
		FuzzBudget: 300 * time.Millisecond}
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Long, 1)
	assert.Contains(t, rep.Long[0].Err, "no run broke two-tokens after 1000 deliveries in ")
	assert.Greater(t, rep.Long[0].SeedsTried, 0)
	var md bytes.Buffer
	rep.Rows = []eval.Row{{Bug: "tok"}}
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), "| tok | – | ")
	assert.Contains(t, md.String(), "error: no run broke")
}
