package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/internal/paths"
	"github.com/demi-project/demi/record"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// DefaultOut names the directory demi-eval writes to unless told otherwise:
// demi-eval-results in the system's temporary directory ($TMPDIR), so that a
// run from the checkout writes nothing in it (docs/ takes --docs).
const DefaultOut = "demi-eval-results"

// defaultOut is the path of DefaultOut under the temporary directory.
func defaultOut() string { return filepath.Join(os.TempDir(), DefaultOut) }

// The files written in the results directory.
const (
	markdownName = "evaluation.md"
	jsonName     = "evaluation.json"
	imgName      = "img"
)

// run executes the command line args and returns the exit status, which is
// demi's: 0 every bug evaluated, 1 some could not be, 2 bad input, 130
// interrupted.
func run(ctx context.Context, cat *record.Catalog, args []string, stdout, stderr io.Writer) int {
	root := newRoot(cat, stdout, stderr)
	cli.RefuseRepeatedFlags(root)
	return cli.Execute(ctx, root, args, stderr)
}

func badInput(err error) error { return &cli.ExitError{Code: cli.ExitBadInput, Err: err} }

// flags are demi-eval's command-line settings.
type flags struct {
	budget, peerBudget, optBudget, scaleBudget time.Duration
	bugs, out, traces, notes, fromJSON         string
	scaleBug, scaleLengths                     string
	workers, replays                           int
	docs, noPeer, noOptimal, noNoDiverge       bool
	noScaling, noPlots                         bool
	fresh                                      int
	freshBudget, optimumBudget                 time.Duration
	freshFrom                                  uint64
	freshTraces                                string
	optimumWorkers                             int
	noOptimum, studiesOnly                     bool
	long, longRuns                             int
	longBudget, longFuzzBudget, longCancel     time.Duration
	noDPOR                                     bool
	dporSchedules                              int
	dporSteps                                  int64
	studies                                    string
	findingTrials, findingCapRuns              int
	findingJobs, findingCurveRuns              int
	findingCap                                 time.Duration
	findingFrom                                uint64
	findingModes                               string
}

func newRoot(cat *record.Catalog, stdout, stderr io.Writer) *cobra.Command {
	var f flags
	cmd := &cobra.Command{
		Use:   "demi-eval [--budget 2m] [--bugs raft-45,raft-46] [--out DIR | --docs]",
		Short: "Reproduce the DEMi paper's evaluation on the example bugs, beside the paper and a peer",
		Long: `demi-eval minimizes every example bug from its shipped failing trace
(TRACES/<bug>.trace) and writes the evaluation document: the DEMi paper's
Table 1 columns (Initial, Provenance, STSSched, TFB, Reference from
TRACES/<bug>.reference.trace, NoDiverge), Table 2 (runtime and schedules per
stage), the paper's own rows beside them, an exhaustive search for the
optimum below the smallest known reproducer of each bug (as demi optimal),
pace plots (the paper's Figure 2) as PNG files, the same bugs searched and
shrunk by pgregory.net/rapid, and a scaling study (trace length, -j 1
against -j 2).

It writes OUT/evaluation.md, OUT/evaluation.json (every number) and
OUT/img/*.png, where OUT is --out (default $TMPDIR/` + DefaultOut + `/); --docs
writes them into the checkout's docs/ instead. Both files are rewritten after
every bug, so an interrupted run leaves the results so far. --from-json FILE
renders OUT/evaluation.md again from a JSON results file (for instance after
editing the notes) without measuring.

The text of --notes (default docs/evaluation-notes.md, when it exists) is
appended as the Analysis section. A full run takes about
bugs x (2 x budget + 2 x peer budget + optimal budget), at most about 45
minutes for the seven raft bugs, plus the scaling study, plus two studies:
the optimum study (demi optimal --subsets below each bug's best known
reproducer, --optimum-budget each) and the fresh-seed study (--fresh failing
traces per bug from the seeds after the shipped one, each minimized with
--fresh-budget). --studies-only runs only these two and keeps the other
sections of OUT/evaluation.json as they were measured. The time-to-bug
study (--finding-trials per bug and fuzz mode, each capped at
--finding-cap-runs runs and --finding-cap, plus abstract-state coverage
curves) runs after the others, or alone with --studies finding; it takes
at most bugs x modes x trials x --finding-cap / --finding-jobs. The long-trace study
(--long N, default 100000; 0 skips it) fuzzes, for every bug, the first
failing run of at least N deliveries from seed 1 and minimizes it with
--long-budget (--long-runs traces per bug), measuring time and peak memory,
then again cancelled after --long-cancel-after; it takes about bugs x
--long-runs x (fuzzing + 2 x --long-budget),
and --studies-only runs it only when --long is given. The DPOR study
(--no-dpor skips it) runs, on every bug's shipped trace and on the first fresh failing trace of
each bug the fresh-seed study covers, delta debugging
over the external events and then over the deliveries with each way of
checking a candidate (STSSched, TFB, wildcards, Broad backtracks, the three
backtrack orders; --dpor-schedules per TFB check, --dpor-steps per pass).
--studies LIST (optimum, fresh, long, dpor) runs only the studies named and
keeps the other sections of OUT/evaluation.json: --docs --studies dpor
regenerates the DPOR section of docs/evaluation.md alone.

Exit status 0 when every bug was evaluated, 1 when some could not be, 2 on
bad input, 130 when interrupted.`,
		Args:          cobra.NoArgs,
		Version:       cli.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cat, stdout, stderr)
		},
	}
	cmd.SetVersionTemplate("demi-eval {{.Version}}\n")
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	fs := cmd.Flags()
	fs.DurationVar(&f.budget, "budget", 2*time.Minute, "time budget of each minimization")
	fs.StringVar(&f.bugs, "bugs", "", "comma-separated bugs to evaluate (default: every TRACES/<bug>.trace)")
	fs.StringVar(&f.out, "out", defaultOut(), "directory of evaluation.md, evaluation.json and img/")
	fs.BoolVar(&f.docs, "docs", false, "write into the checkout's docs/ (docs/evaluation.md, docs/evaluation.json, docs/img/)")
	fs.StringVar(&f.traces, "traces", "examples/traces", "directory of <bug>.trace and <bug>.reference.trace")
	fs.BoolVar(&f.noPlots, "no-plots", false, "draw no PNG plots")
	fs.StringVar(&f.fromJSON, "from-json", "", "render OUT/evaluation.md again from a JSON results file (and --notes) without measuring")
	fs.StringVar(&f.notes, "notes", "docs/evaluation-notes.md", "markdown appended as the Analysis section, if the file exists")
	fs.IntVarP(&f.workers, "jobs", "j", 0, "minimize's -j (default: all cores)")
	fs.IntVar(&f.replays, "replays", 3, "exact replays of each minimized trace")
	fs.DurationVar(&f.peerBudget, "peer-budget", time.Minute, "rapid's search budget, and separately its shrink budget")
	fs.DurationVar(&f.optBudget, "optimal-budget", time.Minute, "budget of the exhaustive search below each bug's smallest known reproducer")
	fs.BoolVar(&f.noPeer, "no-peer", false, "skip the rapid peer")
	fs.BoolVar(&f.noOptimal, "no-optimal", false, "skip the exhaustive search")
	fs.BoolVar(&f.noNoDiverge, "no-nodiverge", false, "skip the NoDiverge runs")
	fs.BoolVar(&f.noScaling, "no-scaling", false, "skip the scaling study")
	fs.StringVar(&f.scaleBug, "scaling-bug", "raft-56", "bug of the scaling study (when its trace is missing: the first bug)")
	fs.StringVar(&f.scaleLengths, "scaling-lengths", "500,1000,2000,4000", "trace lengths (deliveries) of the scaling study")
	fs.DurationVar(&f.scaleBudget, "scaling-budget", time.Minute, "budget of each scaling minimization")
	fs.IntVar(&f.fresh, "fresh", 5, "fresh-seed study: failing traces per bug from the seeds after the shipped one (0: skip)")
	fs.DurationVar(&f.freshBudget, "fresh-budget", time.Minute, "budget of each fresh-seed minimization")
	fs.StringVar(&f.freshTraces, "fresh-traces", "", "fresh-seed study: also write each fresh failing trace to this existing directory as <bug>-<seed>.trace")
	fs.Uint64Var(&f.freshFrom, "fresh-from", 0, "fresh-seed study: first seed of every bug (default: the one after its shipped seed)")
	fs.DurationVar(&f.optimumBudget, "optimum-budget", 10*time.Minute, "budget of each bug's search for its optimum (demi optimal --subsets)")
	fs.IntVar(&f.optimumWorkers, "optimum-workers", 2, "walkers of each optimum search (demi optimal -j; the answers do not depend on it)")
	fs.BoolVar(&f.noOptimum, "no-optimum", false, "skip the search for each bug's optimum")
	fs.BoolVar(&f.studiesOnly, "studies-only", false, "run only the optimum and fresh-seed studies (and the long-trace study when --long is given); keep the other sections of OUT/evaluation.json")
	fs.IntVar(&f.long, "long", 100000, "long-trace study: minimum deliveries of each bug's long fuzzed trace (0: skip)")
	fs.IntVar(&f.longRuns, "long-runs", 1, "long-trace study: failing traces per bug (the first seeds the search gives)")
	fs.DurationVar(&f.longBudget, "long-budget", 5*time.Minute, "budget of each long-trace minimization")
	fs.DurationVar(&f.longFuzzBudget, "long-fuzz-budget", 10*time.Minute, "budget of each bug's search for a long failing trace")
	fs.DurationVar(&f.longCancel, "long-cancel-after", 20*time.Second, "long-trace study: minimize each trace again and cancel it after this long (0: skip)")
	fs.BoolVar(&f.noDPOR, "no-dpor", false, "skip the DPOR study")
	fs.IntVar(&f.dporSchedules, "dpor-schedules", 16, "DPOR study: schedule budget of each TFB check")
	fs.Int64Var(&f.dporSteps, "dpor-steps", 1_500_000, "DPOR study: step cap of each delta debugging pass of each variant")
	fs.StringVar(&f.studies, "studies", "", "run only these studies (comma-separated: optimum, fresh, long, dpor); keep the other sections of OUT/evaluation.json")

	fs.IntVar(&f.findingTrials, "finding-trials", 20, "time-to-bug study: trials per bug and fuzz mode (0: skip)")
	fs.IntVar(&f.findingCapRuns, "finding-cap-runs", 1000, "time-to-bug study: most runs of a trial")
	fs.StringVar(&f.findingModes, "finding-modes", "", "time-to-bug study: comma-separated fuzz modes (default: every mode)")
	fs.Uint64Var(&f.findingFrom, "finding-from", 1, "time-to-bug study: first seed (trial t searches from it + t x --finding-cap-runs)")
	fs.DurationVar(&f.findingCap, "finding-cap", 5*time.Minute, "time-to-bug study: longest a trial searches (a guard: --finding-cap-runs is the cap that measures)")
	fs.IntVar(&f.findingJobs, "finding-jobs", 2, "time-to-bug study: trials run at a time")
	fs.IntVar(&f.findingCurveRuns, "finding-curve-runs", 150, "time-to-bug study: runs of each abstract-state coverage curve")
	return cmd
}

func (f *flags) run(cmd *cobra.Command, cat *record.Catalog, stdout, stderr io.Writer) error {
	out := f.out
	if f.docs {
		if cmd.Flags().Changed("out") {
			return badInput(errors.New("--docs and --out both name the results directory; give one"))
		}
		out = "docs"
	}
	if out == "" {
		return badInput(errors.New("--out must name a directory"))
	}
	if f.budget <= 0 || f.scaleBudget <= 0 {
		return badInput(errors.New("--budget and --scaling-budget must be positive"))
	}
	if f.workers < 0 || f.replays < 0 {
		return badInput(errors.New("-j and --replays must be at least 1"))
	}
	if f.fresh < 0 || f.freshBudget <= 0 || f.optimumBudget <= 0 {
		return badInput(errors.New("--fresh must be at least 0, --fresh-budget and --optimum-budget positive"))
	}
	if f.freshTraces != "" {
		if err := checkDir("--fresh-traces", f.freshTraces, true); err != nil {
			return err
		}
	}
	if f.findingTrials < 0 || f.findingTrials > 1000 || f.findingFrom < 1 || f.findingCapRuns < 1 || f.findingCap <= 0 || f.findingJobs < 1 || f.findingCurveRuns < 0 {
		return badInput(errors.New("--finding-trials must be 0 to 1000, --finding-from, --finding-cap-runs and --finding-jobs at least 1, --finding-cap positive, --finding-curve-runs at least 0"))
	}
	if f.dporSchedules < 1 || f.dporSteps < 1 {
		return badInput(errors.New("--dpor-schedules and --dpor-steps must be positive"))
	}
	only := map[string]bool{}
	for _, s := range strings.Split(f.studies, ",") {
		switch s = strings.TrimSpace(s); s {
		case "":
		case "optimum", "fresh", "long", "dpor", "finding":
			only[s] = true
		default:
			return badInput(fmt.Errorf("--studies: unknown study %q (want optimum, fresh, long, dpor or finding)", s))
		}
	}
	if len(only) > 0 && f.studiesOnly {
		return badInput(errors.New("--studies and --studies-only both choose the studies; give one"))
	}
	if f.findingModes != "" {
		for _, name := range strings.Split(f.findingModes, ",") {
			if _, err := record.LookupMode(name); err != nil {
				return badInput(fmt.Errorf("--finding-modes: %w", err))
			}
		}
	}
	if f.long < 0 || f.long > 1_000_000 || f.longRuns < 1 || f.longBudget <= 0 || f.longFuzzBudget <= 0 || f.longCancel < 0 {
		return badInput(errors.New("--long must be 0 to 1000000, --long-runs at least 1, --long-budget and --long-fuzz-budget positive, --long-cancel-after at least 0"))
	}
	md, js, img := filepath.Join(out, markdownName), filepath.Join(out, jsonName), filepath.Join(out, imgName)
	outputs := []paths.Named{{What: "results file", Path: md}}
	if f.fromJSON == "" {
		outputs = append(outputs, paths.Named{What: "results file", Path: js})
	}
	if err := paths.Distinct([]paths.Named{{What: "--notes", Path: f.notes}, {What: "--from-json", Path: f.fromJSON}}, outputs); err != nil {
		return badInput(err)
	}
	noteText, err := f.readNotes(cmd)
	if err != nil {
		return err
	}
	if f.fromJSON != "" {
		rep, err := eval.ReadJSON(f.fromJSON)
		if err != nil {
			return badInput(err)
		}
		rep.Notes = noteText
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("results directory: %w", err)
		}
		if err := eval.WriteMarkdown(md, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s from %s\n", md, f.fromJSON)
		return nil
	}
	var bugList []string
	for _, b := range strings.Split(f.bugs, ",") {
		if b = strings.TrimSpace(b); b != "" {
			bugList = append(bugList, b)
		}
	}
	lengths, err := parseInts(f.scaleLengths)
	if err != nil {
		return badInput(fmt.Errorf("--scaling-lengths: %w", err))
	}
	if err := checkDir("--traces", f.traces, false); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	cfg := eval.Config{Catalog: cat, TraceDir: f.traces, Bugs: bugList, Budget: f.budget, Workers: f.workers,
		PeerBudget: f.peerBudget, OptimalBudget: f.optBudget, NoDiverge: !f.noNoDiverge, Replays: f.replays, Isolate: true,
		Log: func(format string, a ...any) {
			fmt.Fprintf(stderr, "%s demi-eval: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
		}}
	if f.noPeer {
		cfg.PeerBudget = -1
	}
	if f.noOptimal {
		cfg.OptimalBudget = -1
	}
	if !f.noPlots {
		if err := os.MkdirAll(img, 0o755); err != nil {
			return fmt.Errorf("plot directory: %w", err)
		}
		cfg.ImgDir, cfg.ImgLink = img, imgName
	}
	if !f.noScaling {
		cfg.Scaling = &eval.ScalingConfig{Bug: f.scaleBug, Lengths: lengths, Budget: f.scaleBudget}
	}
	if f.fresh > 0 {
		cfg.Fresh = &eval.FreshConfig{Cases: freshCases(bugList, f.traces), N: f.fresh, Budget: f.freshBudget, From: f.freshFrom, SaveDir: f.freshTraces}
	}
	if !f.noOptimum {
		cfg.Optimum = &eval.OptimumConfig{Budget: f.optimumBudget, Workers: f.optimumWorkers}
	}
	// The long-trace study takes about 7 x (fuzzing + 2 x --long-budget):
	// --studies-only runs it only when --long is given.
	if f.long > 0 && (!f.studiesOnly || cmd.Flags().Changed("long")) {
		cfg.Long = &eval.LongConfig{Cases: longCases(bugList, f.long), N: f.longRuns, Budget: f.longBudget,
			FuzzBudget: f.longFuzzBudget, CancelAfter: f.longCancel}
	}
	if f.findingTrials > 0 {
		cfg.Finding = &eval.FindingConfig{Cases: findingCases(cat, bugList), Trials: f.findingTrials,
			CapRuns: f.findingCapRuns, CapTime: f.findingCap, Workers: f.findingJobs, CurveRuns: f.findingCurveRuns,
			From: f.findingFrom}
		if f.findingModes != "" {
			cfg.Finding.Modes = strings.Split(f.findingModes, ",")
		}
		if f.findingCurveRuns > 0 && len(bugList) == 0 {
			cfg.Finding.Curves = findingCurves(cat)
		}
	}
	if !f.noDPOR {
		cfg.DPOR = &eval.DPORConfig{Bugs: bugList, Schedules: f.dporSchedules, Steps: f.dporSteps,
			Fresh: freshCases(bugList, f.traces)}
	}
	if len(only) > 0 {
		f.studiesOnly = true
		if !only["optimum"] {
			cfg.Optimum = nil
		}
		if !only["fresh"] {
			cfg.Fresh = nil
		}
		if !only["long"] {
			cfg.Long = nil
		} else if cfg.Long == nil && f.long > 0 {
			cfg.Long = &eval.LongConfig{Cases: longCases(bugList, f.long), N: f.longRuns, Budget: f.longBudget,
				FuzzBudget: f.longFuzzBudget, CancelAfter: f.longCancel}
		}
		if !only["dpor"] {
			cfg.DPOR = nil
		}
		if !only["finding"] {
			cfg.Finding = nil
		}
	} else if f.studiesOnly {
		cfg.DPOR, cfg.Finding = nil, nil
	}
	command, commit := commandLine(cmd), sourceCommit()
	cfg.OnUpdate = func(r *eval.Report) error {
		r.Notes = noteText
		if f.studiesOnly && r.Commit != "" {
			r.StudiesCommit = commit
		} else {
			r.Command, r.Commit = command, commit
		}
		if err := eval.WriteMarkdown(md, r); err != nil {
			return err
		}
		return eval.WriteJSON(js, r)
	}
	var rep *eval.Report
	if f.studiesOnly {
		if cfg.Fresh == nil && cfg.Optimum == nil && cfg.Long == nil && cfg.DPOR == nil && cfg.Finding == nil {
			return badInput(errors.New("--studies-only or --studies with --fresh 0, --no-optimum, --no-dpor and no --long leaves nothing to do"))
		}
		base, err := eval.ReadJSON(js)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return badInput(err)
		}
		rep, err = eval.RunStudies(cmd.Context(), cfg, base)
		if err != nil {
			if cmd.Context().Err() != nil {
				return &cli.ExitError{Code: cli.ExitInterrupted, Err: errors.New("interrupted: the results so far are written")}
			}
			return badInput(err)
		}
		fmt.Fprintf(stdout, "wrote %s and %s\n", md, js)
		return nil
	}
	rep, err = eval.Run(cmd.Context(), cfg)
	if rep != nil {
		if err := printSummary(stdout, rep); err != nil {
			return err
		}
	}
	if err != nil {
		if cmd.Context().Err() != nil {
			return &cli.ExitError{Code: cli.ExitInterrupted, Err: errors.New("interrupted: the results so far are written")}
		}
		return badInput(err)
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", md, js)
	for _, r := range rep.Rows {
		if r.Err != "" {
			return &cli.ExitError{Code: cli.ExitNotFound, Err: fmt.Errorf("%s could not be evaluated: %s", r.Bug, r.Err)}
		}
	}
	return nil
}

// readNotes reads --notes; the default file may be missing, a named one not.
func (f *flags) readNotes(cmd *cobra.Command) (string, error) {
	if f.notes == "" {
		return "", nil
	}
	b, err := os.ReadFile(f.notes)
	switch {
	case err == nil:
		return string(b), nil
	case !errors.Is(err, os.ErrNotExist) || cmd.Flags().Changed("notes"):
		return "", badInput(fmt.Errorf("--notes: %w", err))
	}
	return "", nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// printSummary prints one line a bug: the sizes, the time and rapid's result.
func printSummary(w io.Writer, rep *eval.Report) error {
	tab := tablewriter.NewTable(w,
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAlignment(tw.AlignLeft))
	tab.Header("bug", "initial", "STSSched", "TFB", "reference", "TFB/ref", "seconds", "rapid")
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Err != "" {
			if err := tab.Append(r.Bug, "error: "+r.Err, "", "", "", "", "", ""); err != nil {
				return err
			}
			continue
		}
		ref, ratio := "–", "–"
		if r.Reference != nil {
			ref = r.Reference.String()
		}
		if x, ok := r.TFBOverReference(); ok {
			ratio = fmt.Sprintf("%.2f", x)
		}
		peer := "–"
		if r.Peer != nil {
			peer = "not found"
			if r.Peer.Found {
				peer = fmt.Sprintf("%d (E:%d)", r.Peer.Deliveries, r.Peer.Externals)
			}
		}
		if err := tab.Append(r.Bug, r.Initial.String(), r.STSSched.String(), r.TFB.String(), ref, ratio,
			fmt.Sprintf("%.1f", r.TotalSeconds()), peer); err != nil {
			return err
		}
	}
	return tab.Render()
}

// commandLine is the demi-eval command line that runs again what cmd was
// given: every flag set, in name order, after "go run ./cmd/demi-eval".
func commandLine(cmd *cobra.Command) string {
	args := []string{"go run ./cmd/demi-eval"}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if fl.Value.Type() == "bool" && fl.Value.String() == "true" {
			args = append(args, "--"+fl.Name)
			return
		}
		args = append(args, "--"+fl.Name, shellWord(fl.Value.String()))
	})
	return strings.Join(args, " ")
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/=+:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sourceCommit is the checkout's commit as git names it (short hash), marked
// when tracked files differ from it, or "" when git cannot say.
func sourceCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(out))
	dirty, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil || len(bytes.TrimSpace(dirty)) > 0 {
		commit += " with uncommitted changes"
	}
	return commit
}

// checkDir checks, before any work starts, that path (given by flag) is an
// existing directory and, when write is set, that a file can be created in
// it: a study that runs for minutes must not fail at its first output.
func checkDir(flag, path string, write bool) error {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return badInput(fmt.Errorf("%s %s is not a directory", flag, path))
	}
	if write {
		f, err := os.CreateTemp(path, ".demi-eval.check*")
		if err != nil {
			return badInput(fmt.Errorf("%s %s: cannot write there: %w", flag, path, err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}
