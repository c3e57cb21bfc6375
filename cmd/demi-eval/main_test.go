package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ringCatalog() *record.Catalog { return record.NewCatalog(tokenring.System()) }

// TestMain serves the minimizations demi-eval runs in child processes
// (eval.Config.Isolate) as main does: the child is this test binary.
func TestMain(m *testing.M) {
	if req, ok := os.LookupEnv(eval.ChildEnv); ok {
		os.Exit(eval.ServeMinimize(context.Background(), ringCatalog(), req, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runEval runs demi-eval on the token ring and returns its exit status,
// stdout and stderr.
func runEval(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), ringCatalog(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// ringTrace writes a failing token ring trace dir/ring.trace with demi fuzz.
func ringTrace(t *testing.T, dir string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), ringCatalog(), []string{"fuzz", "--system", "tokenring",
		"--bug", "restore-token", "--seed", "3", "--runs", "100", "--max-steps", "200", "--externals", "10",
		"--min-deliveries", "20", "-o", filepath.Join(dir, "ring.trace")}, &out, &errb)
	require.Equal(t, 0, code, out.String()+errb.String())
}

// TestWritesResultsDirectoryByDefault runs the whole evaluation on the token
// ring from a fresh working directory (standing for the checkout):
// everything lands in $TMPDIR/demi-eval-results/, nothing in the working
// directory.
func TestWritesResultsDirectoryByDefault(t *testing.T) {
	traces := t.TempDir()
	ringTrace(t, traces)
	work := t.TempDir()
	t.Chdir(work)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	results := filepath.Join(tmp, DefaultOut)
	code, out, errs := runEval(t, "--traces", traces, "--budget", "1m", "--peer-budget", "1m",
		"--optimal-budget", "1m", "--no-scaling", "-j", "1")
	require.Equal(t, 0, code, out+errs)
	assert.Contains(t, out, "wrote "+filepath.Join(results, "evaluation.md")+" and "+filepath.Join(results, "evaluation.json")+"\n")

	entries, err := os.ReadDir(work)
	require.NoError(t, err)
	assert.Empty(t, entries, "demi-eval writes nothing in the working directory")
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "demi-eval writes only its results directory")
	assert.Equal(t, DefaultOut, entries[0].Name())
	assert.FileExists(t, filepath.Join(results, "img", "ring-pace.png"))

	rep, err := eval.ReadJSON(filepath.Join(results, "evaluation.json"))
	require.NoError(t, err)
	require.Len(t, rep.Rows, 1)
	r := rep.Rows[0]
	assert.Equal(t, "ring", r.Bug)
	assert.Empty(t, r.Err)
	assert.Equal(t, r.Replays, r.Replayed, "every replay of the result reproduces the violation")
	md, err := os.ReadFile(filepath.Join(results, "evaluation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "![Minimization pace for ring](img/ring-pace.png)")

	// Re-rendering from the JSON with notes needs no measuring.
	notes := filepath.Join(work, "notes.md")
	require.NoError(t, os.WriteFile(notes, []byte("Why it went this way."), 0o644))
	again := filepath.Join(work, "again")
	code, out, errs = runEval(t, "--from-json", filepath.Join(results, "evaluation.json"), "--notes", notes, "--out", again)
	require.Equal(t, 0, code, out+errs)
	b, err := os.ReadFile(filepath.Join(again, "evaluation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "## Analysis\n\nWhy it went this way.")
}

func TestVersion(t *testing.T) {
	code, out, errs := runEval(t, "--version")
	require.Equal(t, cli.ExitOK, code, errs)
	assert.Equal(t, "demi-eval "+cli.Version()+"\n", out)
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	ringTrace(t, dir)
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--traces", missing}, "demi-eval: --traces " + missing + " is not a directory"},
		{[]string{"--traces", dir, "--budget", "0s"}, "demi-eval: --budget and --scaling-budget must be positive"},
		{[]string{"--traces", dir, "--scaling-lengths", "10,x"}, `demi-eval: --scaling-lengths: "x" is not a positive integer`},
		{[]string{"--from-json", missing + ".json"}, "demi-eval: eval: open " + missing + ".json: no such file or directory"},
		{[]string{"--docs", "--out", dir}, "demi-eval: --docs and --out both name the results directory; give one"},
		{[]string{"--out", ""}, "demi-eval: --out must name a directory"},
		{[]string{"--notes", missing}, "demi-eval: --notes: open " + missing + ": no such file or directory"},
		{[]string{"--no-such-flag"}, "demi-eval: unknown flag: --no-such-flag"},
		{[]string{"--traces", dir, "--studies", "dpor,bogus"}, `demi-eval: --studies: unknown study "bogus" (want optimum, fresh, long, dpor or finding)`},
		{[]string{"--traces", dir, "--studies", "dpor", "--studies-only"}, "demi-eval: --studies and --studies-only both choose the studies; give one"},
		{[]string{"--traces", dir, "--fresh-traces", missing}, "demi-eval: --fresh-traces " + missing + " is not a directory"},
		{[]string{"--traces", dir, "--dpor-steps", "0"}, "demi-eval: --dpor-schedules and --dpor-steps must be positive"},
		{[]string{"extra"}, `demi-eval: unknown command "extra" for "demi-eval"`},
	} {
		code, out, errs := runEval(t, c.args...)
		assert.Equal(t, cli.ExitBadInput, code, "%v: %s%s", c.args, out, errs)
		assert.Equal(t, c.err+"\n", errs, "%v", c.args)
	}
}

// TestStudiesDPOR runs the DPOR study alone (--studies dpor), as the
// command docs/evaluation.md names regenerates its section: the other
// sections of the JSON in the results directory are kept.
func TestStudiesDPOR(t *testing.T) {
	traces := t.TempDir()
	ringTrace(t, traces)
	out := t.TempDir()
	base := &eval.Report{Rows: []eval.Row{{Bug: "kept"}}}
	require.NoError(t, eval.WriteJSON(filepath.Join(out, "evaluation.json"), base))
	code, stdout, errs := runEval(t, "--traces", traces, "--out", out, "--studies", "dpor", "--dpor-schedules", "4", "-j", "1")
	require.Equal(t, 0, code, stdout+errs)
	rep, err := eval.ReadJSON(filepath.Join(out, "evaluation.json"))
	require.NoError(t, err)
	require.Len(t, rep.Rows, 1)
	assert.Equal(t, "kept", rep.Rows[0].Bug, "the other sections are kept")
	require.Len(t, rep.DPOR, 1)
	assert.Equal(t, "ring", rep.DPOR[0].Bug)
	assert.Equal(t, 4, rep.DPORSchedules)
	assert.Len(t, rep.DPOR[0].Runs, len(eval.DPORVariants(4)))
	md, err := os.ReadFile(filepath.Join(out, "evaluation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "## DPOR study: STSSched against type-fingerprint backtracks")
	assert.Empty(t, rep.Optimum, "--studies dpor runs no other study")
	assert.Empty(t, rep.Fresh)

	// Again into a directory whose JSON holds the study alone.
	alone := t.TempDir()
	for range 2 {
		code, stdout, errs = runEval(t, "--traces", traces, "--out", alone, "--studies", "dpor", "--dpor-schedules", "2", "-j", "1")
		require.Equal(t, 0, code, stdout+errs)
	}
}

// TestCommandLineKeepsEveryFlag: the "Regenerate it with" line of the
// document names every flag the run was given, not only --budget.
func TestCommandLineKeepsEveryFlag(t *testing.T) {
	root := newRoot(ringCatalog(), io.Discard, io.Discard)
	require.NoError(t, root.ParseFlags([]string{"--docs", "--budget", "2m", "--bugs", "raft-45,raft-46", "--no-peer", "--fresh", "3"}))
	assert.Equal(t, "go run ./cmd/demi-eval --budget 2m0s --bugs raft-45,raft-46 --docs --fresh 3 --no-peer", commandLine(root))
}

// Outputs that name an input are refused before any work (issue 27 item
// 3), and so is a flag given twice.
func TestOutputsMustNotNameInputs(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "evaluation.md")
	require.NoError(t, os.WriteFile(notes, []byte("notes"), 0o644))
	code, _, errs := runEval(t, "--out", dir, "--notes", notes)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "results file "+notes+" is the --notes file; demi never overwrites its input")
	got, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "notes", string(got))

	code, _, errs = runEval(t, "--out", dir, "--budget", "1s", "--budget", "2s")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--budget is given twice")
}

// TestStudiesFindingTwice: the time-to-bug study alone, twice into the
// same results directory (whose JSON then holds that study alone), and
// rendered again from that JSON.
func TestStudiesFindingTwice(t *testing.T) {
	traces, out := t.TempDir(), t.TempDir()
	for range 2 {
		code, stdout, errs := runEval(t, "--traces", traces, "--out", out, "--studies", "finding", "--bugs", "tokenring-restore-token",
			"--finding-trials", "2", "--finding-cap-runs", "5", "--finding-curve-runs", "0", "--no-plots")
		require.Equal(t, 0, code, stdout+errs)
	}
	js := filepath.Join(out, "evaluation.json")
	rep, err := eval.ReadJSON(js)
	require.NoError(t, err)
	require.NotNil(t, rep.Finding)
	require.Len(t, rep.Finding.Rows, len(record.Modes())) // rounds too: tokenring has no rounds, its row says so
	again := t.TempDir()
	code, stdout, errs := runEval(t, "--out", again, "--from-json", js)
	require.Equal(t, 0, code, stdout+errs)
	md, err := os.ReadFile(filepath.Join(again, "evaluation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Finding bugs: time to the first violation, by fuzz mode")
}

// TestStudiesFindingFromAndModes: --finding-from moves every trial's
// seeds (trial t from it + t x --finding-cap-runs), --finding-modes keeps
// the modes named, and the rendered text names the first seed.
func TestStudiesFindingFromAndModes(t *testing.T) {
	traces, out := t.TempDir(), t.TempDir()
	code, stdout, errs := runEval(t, "--traces", traces, "--out", out, "--studies", "finding", "--bugs", "tokenring-restore-token",
		"--finding-trials", "2", "--finding-cap-runs", "5", "--finding-curve-runs", "0", "--no-plots",
		"--finding-from", "800001", "--finding-modes", "walk,swarm")
	require.Equal(t, 0, code, stdout+errs)
	rep, err := eval.ReadJSON(filepath.Join(out, "evaluation.json"))
	require.NoError(t, err)
	require.NotNil(t, rep.Finding)
	assert.Equal(t, uint64(800001), rep.Finding.From)
	require.Len(t, rep.Finding.Rows, 2)
	for i, mode := range []string{"walk", "swarm"} {
		row := rep.Finding.Rows[i]
		assert.Equal(t, mode, row.Mode)
		require.Len(t, row.Trials, 2)
		assert.Equal(t, uint64(800001), row.Trials[0].Seed)
		assert.Equal(t, uint64(800006), row.Trials[1].Seed)
	}
	md, err := os.ReadFile(filepath.Join(out, "evaluation.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "trial t searches from seed 800001 + t×5")

	code, _, errs = runEval(t, "--traces", traces, "--out", out, "--studies", "finding", "--finding-from", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--finding-from")

	// An unknown mode is refused before any study runs.
	code, _, errs = runEval(t, "--traces", traces, "--out", out, "--studies", "finding", "--finding-modes", "swarm,bogus")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--finding-modes: unknown fuzz mode "bogus"`)
}
