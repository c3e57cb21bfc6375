package eval_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvariantReplacesMembersAsWholeWords(t *testing.T) {
	members := []record.ActorID{"raft-1", "raft-2", "raft-10"}
	assert.Equal(t, "ElectionSafety(*,*)", eval.Invariant("ElectionSafety(raft-1,raft-10)", members))
	assert.Equal(t, "panic: leader * has a nextIndex beyond its log @ raft.assertf (assert.go:12)",
		eval.Invariant("panic: leader raft-2 has a nextIndex beyond its log @ raft.assertf (assert.go:12)", members))
	assert.Equal(t, "LogMatching(raft-3,*)", eval.Invariant("LogMatching(raft-3,raft-2)", members), "raft-3 is no member")
	assert.Equal(t, "x-raft-1y", eval.Invariant("x-raft-1y", members), "not a whole word")
}

func TestBestKnownIsTheSmallerOfReferenceAndMinTrace(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	s, of, err := eval.BestKnown("../examples/traces", "raft-46", cat)
	require.NoError(t, err)
	assert.Equal(t, eval.Size{Deliveries: 10, Externals: 6}, s)
	assert.Equal(t, "shipped .min.trace", of)
	s, of, err = eval.BestKnown("../examples/traces", "raft-58b", cat)
	require.NoError(t, err)
	assert.Equal(t, eval.Size{Deliveries: 9, Externals: 8}, s)
	assert.Equal(t, "reference", of)
	_, _, err = eval.BestKnown(t.TempDir(), "raft-46", cat)
	require.ErrorContains(t, err, "neither raft-46.reference.trace nor raft-46.min.trace")
}

func TestSummarizeFreshAndSpread(t *testing.T) {
	run := func(r float64, hit bool) eval.FreshRun {
		return eval.FreshRun{Ratio: r, HitBudget: hit, Proved: r == 1}
	}
	rows := []eval.FreshRow{
		{Bug: "a", Runs: []eval.FreshRun{run(1.5, false), run(1, false), run(0.9, true)}},
		{Bug: "b", Runs: []eval.FreshRun{run(1.2, false), run(1.1, false)}},
	}
	b, m, w, ok := rows[0].Spread()
	require.True(t, ok)
	assert.Equal(t, []float64{0.9, 1, 1.5}, []float64{b, m, w})
	s := eval.SummarizeFresh(rows)
	assert.Equal(t, eval.FreshSummary{Runs: 5, Median: 1.1, Worst: 1.5, WithinBudget: 4, Proved: 1, MedianSmallest: 1.1, WorstSmallest: 1.5}, s)
	// Over a proven optimum below the best known size, the second pair
	// of figures grows and the first stays.
	rows[1].Runs[0].OverOptimum = 1.8
	s = eval.SummarizeFresh(rows)
	assert.Equal(t, eval.FreshSummary{Runs: 5, Median: 1.1, Worst: 1.5, WithinBudget: 4, Proved: 1, MedianSmallest: 1.1, WorstSmallest: 1.8}, s)
	_, _, _, ok = (&eval.FreshRow{}).Spread()
	assert.False(t, ok)
}

// TestFreshWithOptima: an optimum study run apart from the fresh-seed
// study (and merged into one report) still gives every fresh run its
// ratio over the proven optimum, and the report itself is not changed.
func TestFreshWithOptima(t *testing.T) {
	rep := &eval.Report{
		Optimum: []eval.OptimumRow{{Bug: "a", Exhausted: true, Found: &eval.Size{Deliveries: 15, Externals: 6}}},
		Fresh: []eval.FreshRow{
			{Bug: "a", Best: eval.Size{Deliveries: 16, Externals: 8}, Runs: []eval.FreshRun{{Result: eval.Size{Deliveries: 22, Externals: 8}, Ratio: 1.25}}},
			{Bug: "b", Best: eval.Size{Deliveries: 10, Externals: 2}, Runs: []eval.FreshRun{{Result: eval.Size{Deliveries: 10, Externals: 2}, Ratio: 1}}},
		},
	}
	rows := rep.FreshWithOptima()
	require.Len(t, rows, 2)
	require.NotNil(t, rows[0].Optimum)
	assert.Equal(t, 21, rows[0].Optimum.Deliveries+rows[0].Optimum.Externals)
	assert.InDelta(t, 30.0/21, rows[0].Runs[0].OverOptimum, 1e-9)
	assert.Nil(t, rows[1].Optimum, "no optimum study row for b")
	assert.Zero(t, rows[1].Runs[0].OverOptimum)
	assert.Nil(t, rep.Fresh[0].Optimum, "the report is not changed")
	assert.Zero(t, rep.Fresh[0].Runs[0].OverOptimum)
	s := eval.SummarizeFresh(rows)
	assert.InDelta(t, 30.0/21, s.WorstSmallest, 1e-9)
	assert.InDelta(t, 1.25, s.Worst, 1e-9)
}

// tokenringFresh fuzzes a tokenring "shipped" trace (also its .min.trace)
// into a temporary trace directory and returns it with a fresh-seed study
// of one failing trace over that directory.
func tokenringFresh(t *testing.T) (*record.Trace, eval.Config) {
	sys := tokenring.System()
	opts := record.Options{"restore-token": "true"}
	sc := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 12}
	shipped, _, err := record.Search(context.Background(), sys, opts, sc)
	require.NoError(t, err)
	require.NotNil(t, shipped)
	dir := t.TempDir()
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.trace")))
	require.NoError(t, shipped.WriteFile(filepath.Join(dir, "tok.min.trace")))
	sc.Seed = shipped.Header.Seed
	cfg := eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir, Workers: 1, Log: func(f string, a ...any) {}}
	cfg.Fresh = &eval.FreshConfig{Cases: []eval.FreshCase{{Bug: "tok", System: sys.Name, Options: opts, Search: sc}},
		N: 1, Budget: 20 * time.Second}
	return shipped, cfg
}

// TestFreshSeedsTokenring runs the whole study on tokenring: the seeds
// after the shipped one that fail with the same invariant, each minimized.
func TestFreshSeedsTokenring(t *testing.T) {
	shipped, cfg := tokenringFresh(t)
	var logs bytes.Buffer
	cfg.Fresh.N = 2
	cfg.Fresh.SaveDir = t.TempDir()
	cfg.OnUpdate = func(r *eval.Report) error { logs.WriteString(r.Fresh[len(r.Fresh)-1].Bug); return nil }
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Fresh, 1)
	row := rep.Fresh[0]
	require.Empty(t, row.Err)
	require.Len(t, row.Runs, 2)
	assert.Equal(t, shipped.Header.Seed, row.ShippedSeed)
	assert.Greater(t, row.Runs[0].Seed, shipped.Header.Seed)
	assert.Greater(t, row.Runs[1].Seed, row.Runs[0].Seed)
	for _, x := range row.Runs {
		assert.LessOrEqual(t, x.Result.Deliveries, x.Initial.Deliveries)
		assert.InDelta(t, float64(x.Result.Deliveries+x.Result.Externals)/float64(row.Best.Deliveries+row.Best.Externals), x.Ratio, 1e-9)
		assert.True(t, x.Proved, "the optimum pass proves 3 (E:4) optimal over its external events")
	}
	assert.Equal(t, "toktok", logs.String(), "after the bug, and at the end")
	for _, x := range row.Runs { // the inputs, kept with --fresh-traces
		saved, _, err := record.ReadFile(filepath.Join(cfg.Fresh.SaveDir, fmt.Sprintf("tok-%d.trace", x.Seed)), cfg.Catalog)
		require.NoError(t, err)
		assert.Equal(t, x.Seed, saved.Header.Seed)
		assert.Equal(t, x.Initial.Deliveries, saved.Header.Deliveries)
	}
	var md bytes.Buffer
	rep.Rows = []eval.Row{{Bug: "tok"}}
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), "## Fresh seeds: failing traces demi has never seen")
	assert.Contains(t, md.String(), "- tok (shipped seed 3): `demi fuzz --system tokenring --mode walk --bug restore-token --max-steps 600 --externals 40 --timer-prob 0 --check-every 0 --min-deliveries 12`")
	assert.Contains(t, md.String(), "| tok | 5, 6 | 39 (E:33) (shipped .min.trace) | – | 3 (E:4), 3 (E:4) | 0.10 / 0.10 / 0.10 |")
	assert.Contains(t, md.String(), "2 of the 2 results are proved optimal over their own external events")
}

// TestFreshSeedsFrom starts the study at a seed range of its own
// (demi-eval --fresh-from): the first failing seed from there on, and the
// document says where the seeds came from.
func TestFreshSeedsFrom(t *testing.T) {
	_, cfg := tokenringFresh(t)
	cfg.Fresh.From = 1000
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Fresh, 1)
	row := rep.Fresh[0]
	require.Len(t, row.Runs, 1)
	assert.Equal(t, uint64(1000), row.FirstSeed)
	assert.GreaterOrEqual(t, row.Runs[0].Seed, uint64(1000))
	assert.Equal(t, uint64(1000), rep.FreshFrom)
	var md bytes.Buffer
	rep.Rows = []eval.Row{{Bug: "tok"}}
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), "is repeated with the seeds from 1000 on (a range chosen before any run, with `demi-eval --fresh-from 1000`), in order;")
}

func TestOptimumStudyTokenring(t *testing.T) {
	sys := tokenring.System()
	cat := record.NewCatalog(sys)
	tr, _, err := record.Search(context.Background(), sys, record.Options{"panic-on-lap": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 7, MaxSteps: 40, MaxExternals: 8}, Runs: 200})
	require.NoError(t, err)
	require.NotNil(t, tr)
	dir := t.TempDir()
	require.NoError(t, tr.WriteFile(filepath.Join(dir, "lap.min.trace")))
	cfg := eval.Config{Catalog: cat, TraceDir: dir, Workers: 1, Bugs: []string{"lap"},
		Optimum: &eval.OptimumConfig{Budget: time.Minute}}
	rep, err := eval.RunStudies(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, rep.Optimum, 1)
	row := rep.Optimum[0]
	require.Empty(t, row.Err)
	assert.Equal(t, "shipped .min.trace", row.Of)
	assert.True(t, row.Exhausted)
	require.NotNil(t, row.Found, "the fuzzed trace is far from optimal")
	assert.Less(t, row.Found.Deliveries+row.Found.Externals, tr.Header.Deliveries+tr.Header.Externals)
	assert.Equal(t, row.Found.Deliveries+row.Found.Externals, row.LowerBound)
	assert.Equal(t, row.Found, row.Proven())

	rep.Fresh = []eval.FreshRow{{Bug: "lap", Runs: []eval.FreshRun{{Result: eval.Size{Deliveries: 2 * row.Found.Deliveries, Externals: 2 * row.Found.Externals}}}}}
	rep.LinkOptima()
	assert.Equal(t, row.Found, rep.Fresh[0].Optimum)
	assert.InDelta(t, 2.0, rep.Fresh[0].Runs[0].OverOptimum, 1e-9)
	var md bytes.Buffer
	rep.Rows = []eval.Row{{Bug: "lap"}}
	require.NoError(t, eval.Markdown(&md, rep))
	assert.Contains(t, md.String(), "| lap | shipped .min.trace | "+fmt.Sprintf("%s = %d", eval.Size{Deliveries: tr.Header.Deliveries, Externals: tr.Header.Externals}, tr.Header.Deliveries+tr.Header.Externals)+" | smaller reproducer found: "+row.Found.String())
}
