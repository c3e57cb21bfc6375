package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/demi-project/demi/internal/collector"
	"github.com/demi-project/demi/internal/paths"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// minimizeStats is the JSON written by --stats.
type minimizeStats struct {
	System      string  `json:"system"`
	Input       string  `json:"input"`
	Output      string  `json:"output"`
	Strategy    string  `json:"strategy"`
	Budget      float64 `json:"budget_seconds"`
	Workers     int     `json:"workers"`
	Violation   string  `json:"violation"`
	Interrupted bool    `json:"interrupted"`
	// OutOfTime: the wall-clock budget, not the step budget, ended the run
	// (minimize.Result.OutOfTime).
	OutOfTime bool `json:"out_of_time"`
	// Optimal: the result is proved optimal over its external events
	// (minimize.Result.Optimal; evaluation.json's name too).
	Optimal  bool                  `json:"proved_optimal"`
	Failures []string              `json:"failures,omitempty"`
	Stages   []minimize.StageStats `json:"stages"`
	// Passes sums the stages up per pass: calls, steps, successes and
	// the events they removed, and (fork) the same of the calls the beam's
	// forks made, whose steps the beam's row counts.
	Passes    []minimize.PassStats `json:"passes"`
	Final     minimize.StageStats  `json:"final"`
	Schedules int64                `json:"schedules"`
	Steps     int64                `json:"steps"`
	Seconds   float64              `json:"seconds"`
	PerSecond float64              `json:"schedules_per_second"`
	Pace      []minimize.PacePoint `json:"pace"`
	// RoundForm sums the result up in rounds (for systems whose messages
	// carry a round): deliveries in round form and the residue.
	RoundForm *rounds.Totals `json:"round_form,omitempty"`
}

func minimizeCmd(e *env) *cobra.Command {
	var (
		out      string
		budget   time.Duration
		strategy string
		stats    string
		workers  int
		steps    int64
		passes   string
		of       optionFlags
	)
	cmd := &cobra.Command{
		Use:   "minimize FILE [-o OUT] [--budget DURATION] [--steps N] [--strategy tfb|sts|nodiverge] [--passes -NAME,...] [--stats STATS.json] [-j N]",
		Short: "Minimize a failing trace to a minimal causal sequence",
		Long: `minimize takes a failing trace and returns a trace that still triggers the same
violation (same fingerprint) with as few external events, deliveries and
message contents as it finds within the budget, then replays the result
exactly to verify it. One driver runs the passes below: the removals to a
fixpoint, then the moves, then the searches, back to the removals after any
success, the cleanup last; it stops when --steps is spent, when the steps
since the last improvement exceed those it took to reach it, or when the
optimum pass proves the result optimal over its external events. --passes
-gather,-inject leaves passes out (for ablation). See docs/minimization.md.

` + passList() + `

The result goes to NAME.min.trace next to the input unless -o says otherwise;
the input is never overwritten. --strategy sts stops after delta debugging
with STSSched (the paper's prior-work baseline); nodiverge runs the removal
stages with every schedule aborted when it makes a state transition the
original run never made (the paper's NoDiverge); tfb (the
default) is the full pipeline. -j N checks candidates on N cores; the result
does not depend on N. Ctrl-C writes the best trace found so far. --opt,
--bug and --no-bug minimize the trace under options changed from its header
(it must still reproduce its violation exactly under them).

Exit status 0 on success, 1 when the trace does not reproduce its violation,
2 on bad input, 130 when interrupted (the best trace so far is written).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := args[0]
			if !minimize.ValidStrategy(strategy) {
				return badInput(fmt.Errorf("--strategy %q: want tfb, sts or nodiverge", strategy))
			}
			if budget <= 0 {
				return badInput(fmt.Errorf("--budget %s: want a positive duration", budget))
			}
			if workers < 0 || workers > maxJobs {
				return badInput(fmt.Errorf("-j %d: want 1 to %d (0: all cores)", workers, maxJobs))
			}
			if steps < 0 {
				return badInput(errors.New("--steps must be positive"))
			}
			skip, err := minimize.ParsePasses(passes)
			if err != nil {
				return badInput(fmt.Errorf("--passes: %w", err))
			}
			if err := checkOutputsOf(in, out, ".min.trace", paths.Named{What: "--stats", Path: stats}); err != nil {
				return err
			}
			if stats != "" {
				if err := checkOutput("--stats", stats, false); err != nil {
					return err
				}
			}
			t, sys, out, err := e.loadFailingTrace(cmd.Context(), "minimize", in, out, ".min.trace")
			if err != nil {
				return err
			}
			if t, err = of.apply(t, sys); err != nil {
				return err
			}
			outFile, statsFile := planOutput("-o", out, in), planOutput("--stats", stats, in)
			if workers == 0 {
				workers = runtime.NumCPU()
			}
			workers = min(workers, maxWorkers())
			// Minimization allocates a fresh run per schedule; a lazier
			// collector is markedly faster and the heap stays small.
			defer debug.SetGCPercent(debug.SetGCPercent(collector.Percent(t.Header.Deliveries)))
			// ... up to a soft limit, so that the collector's slack (8x the
			// live heap) does not take a long trace past a gigabyte; a
			// GOMEMLIMIT the user set stays.
			if debug.SetMemoryLimit(-1) == math.MaxInt64 {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(collector.MemoryLimit))
			}
			prog := newProgressPrinter(e.stderr)
			cfg := minimize.Config{Budget: budget, Strategy: strategy, Workers: workers, Steps: steps, Progress: prog.update}
			for name := range skip {
				cfg.Skip = append(cfg.Skip, name)
			}
			res, err := minimize.Run(cmd.Context(), sys, t, cfg)
			prog.done()
			if err != nil {
				if errors.Is(err, minimize.ErrNotReproduced) {
					return notFound(explainNotReproduced(cmd.Context(), sys, t, err))
				}
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted before the violation was reproduced (by a window of the input or its replay): nothing written")}
				}
				if errors.Is(err, context.DeadlineExceeded) {
					return notFound(err)
				}
				return err
			}
			// A result that cannot go to -o (a full disk, a file another
			// run wrote meanwhile) is kept elsewhere, said on stdout, and
			// the command fails with where it went.
			out, kept := outFile.writeTrace(res.Trace)
			if out == "" {
				return kept
			}
			if stats != "" {
				var serr error
				if stats, serr = writeStats(statsFile, in, out, strategy, budget, workers, t.Header.Violation.Fingerprint, sys.Name, res,
					roundTotals(sys, res.Trace)); kept == nil {
					kept = serr
				}
			}
			tab := newTable(e.stdout, "stage", "deliveries", "externals", "schedules", "steps", "seconds")
			for _, s := range res.Stages {
				if err := tab.Append(s.Name, fmt.Sprint(s.Deliveries), fmt.Sprint(s.Externals),
					fmt.Sprint(s.Schedules), fmt.Sprint(s.Steps), fmt.Sprintf("%.2f", s.Seconds)); err != nil {
					return err
				}
			}
			if err := tab.Render(); err != nil {
				return err
			}
			// Per pass: the evidence of what each pass paid for, in the run and in the beam's forks.
			ptab := newTable(e.stdout, "pass", "tier", "calls", "steps", "successes", "removed", "fork calls", "fork successes")
			for _, p := range res.Passes {
				if err := ptab.Append(p.Name, p.Tier, fmt.Sprint(p.Calls), fmt.Sprint(p.Steps),
					fmt.Sprint(p.Successes), fmt.Sprint(p.Removed), fmt.Sprint(p.Fork.Calls), fmt.Sprint(p.Fork.Successes)); err != nil {
					return err
				}
			}
			if err := ptab.Render(); err != nil {
				return err
			}
			h := res.Trace.Header
			fmt.Fprintf(e.stdout, "%s: %d deliveries and %d externals → %d deliveries and %d externals (%s)\nwrote %s\n",
				in, t.Header.Deliveries, t.Header.Externals, h.Deliveries, h.Externals, h.Violation.Fingerprint, out)
			if res.Optimal {
				fmt.Fprintln(e.stdout, "optimal: no subsequence of its external events reproduces the violation with fewer deliveries plus externals (proved by the optimum pass)")
			}
			if res.OutOfTime {
				fmt.Fprintf(e.stdout, "out of time: the wall-clock budget (--budget %s) ended the run before its step budget; "+
					"the result depends on this machine's speed and load, and a larger --budget gives the step budget's result\n", budget)
			}
			for _, f := range res.Failures {
				fmt.Fprintf(e.stderr, "demi: warning: a pass failed and the run went on without it (an internal error: please report it with the input trace): %s\n", f)
			}
			if res.Interrupted {
				fmt.Fprintln(e.stdout, "interrupted: this is the best trace found so far")
				if kept == nil {
					kept = &ExitError{Code: ExitInterrupted}
				}
			}
			return kept
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output trace (default NAME.min.trace next to the input)")
	cmd.Flags().DurationVar(&budget, "budget", minimize.DefaultBudget, "wall-clock budget: a hard outer cap (a run normally ends on its --steps first)")
	cmd.Flags().Int64Var(&steps, "steps", 0, "work budget in steps, one event of one checked schedule each, for all the work; the result depends only on it (default 20,000,000, more on traces of 5,000 deliveries or more)")
	cmd.Flags().StringVar(&passes, "passes", "", "passes to leave out, as -NAME,-NAME (names listed above)")
	cmd.Flags().StringVar(&strategy, "strategy", "tfb", "tfb (full pipeline), sts (stop after STSSched/ddmin) or nodiverge")
	cmd.Flags().StringVar(&stats, "stats", "", "write the per-stage statistics as JSON to this file")
	cmd.Flags().IntVarP(&workers, "jobs", "j", 0, "candidate checks in parallel (default: all cores)")
	of.register(cmd, " instead of the trace's")
	return cmd
}

// passList is the pass table as demi minimize --help shows it.
func passList() string {
	var b strings.Builder
	b.WriteString("Passes (tier, what the system must provide):\n")
	for _, p := range minimize.Passes() {
		needs := ""
		if p.Needs != "" {
			needs = ", " + p.Needs
		}
		fmt.Fprintf(&b, "  %-24s %s%s\n", p.Name, p.Tier, needs)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeStats(o *output, in, out, strategy string, budget time.Duration, workers int, violation, system string, res *minimize.Result,
	rf *rounds.Totals) (string, error) {
	st := minimizeStats{System: system, Input: in, Output: out, Strategy: strategy, Budget: budget.Seconds(),
		Workers: workers, Violation: violation, Interrupted: res.Interrupted, OutOfTime: res.OutOfTime, Optimal: res.Optimal, Failures: res.Failures, Stages: res.Stages,
		Final: res.Final, Pace: res.Pace, Passes: res.Passes, RoundForm: rf}
	for _, s := range res.Stages {
		st.Schedules += s.Schedules
		st.Steps += s.Steps
		st.Seconds += s.Seconds
	}
	if st.Seconds > 0 {
		st.PerSecond = float64(st.Schedules) / st.Seconds
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return "", err
	}
	return o.write(append(b, '\n'))
}

// progressPrinter shows minimization progress on stderr: a live line when
// it is a terminal, a plain line every few seconds (and at every stage
// change) otherwise.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	stage string
	last  time.Time
	live  bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progressPrinter) update(s minimize.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	left := max(s.Budget-s.Elapsed, 0)
	if s.Deliveries == 0 && s.Externals == 0 {
		return // the input is still being checked; nothing to show yet
	}
	line := fmt.Sprintf("%-20s best %5d deliveries %4d externals  %9d schedules  %6.1fs elapsed  %6.1fs left",
		s.Stage, s.Deliveries, s.Externals, s.Schedules, s.Elapsed.Seconds(), left.Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.live = true
		return
	}
	if s.Stage != p.stage || time.Since(p.last) >= 5*time.Second {
		p.stage, p.last = s.Stage, time.Now()
		fmt.Fprintln(p.w, line)
	}
}

func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprintln(p.w)
		p.live = false
	}
}

// roundTotals lays the minimized trace out in rounds for the statistics;
// nil when its messages carry no round (or it cannot be laid out).
func roundTotals(sys *record.System, t *record.Trace) *rounds.Totals {
	lay, err := rounds.Build(context.Background(), sys, t)
	if err != nil || !lay.Rounded {
		return nil
	}
	tot := lay.Totals()
	return &tot
}
