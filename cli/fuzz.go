package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Limits of the fuzz flags: a run's event log is reserved up front for its
// step limit, so the limit is bounded like any other untrusted size.
const (
	maxFuzzSteps     = 5_000_000
	maxFuzzExternals = 1_000_000
	// DefaultFuzzBudget is how long fuzz searches seeds when --runs is not
	// given.
	DefaultFuzzBudget = time.Minute
)

func fuzzCmd(e *env) *cobra.Command {
	var (
		system   string
		of       optionFlags
		out      string
		cfg      record.SearchConfig
		network  string
		extCount int
		budget   time.Duration
		mode     string
		shard    string
		dir      string
		census   bool
		rm       record.RoundsMode
	)
	cmd := &cobra.Command{
		Use:   "fuzz --system S [--bug B] [--mode M] [--seed N] [--runs R] [--budget D] [--max-steps N] [--shard I/N] [-o FILE | --dir DIR]",
		Short: "Run a system at random until an invariant breaks, and record the trace",
		Long: `fuzz runs the system's setup events, then random external events (by the
system's weights) interleaved with random deliveries that respect the network
semantics, checking the invariant every --check-every deliveries, until a
violation or --max-steps deliveries. --mode picks how each run is made:
swarm (the default) draws every run's own mix of faults and workload (which
kinds of external event, their weights, the timer probability) from its seed
within ranges the system declares, and records the drawn values in the
trace header; walk uses the same weights (the options) and --timer-prob for
every run, as demi did before modes; rounds (systems whose messages carry
a round, record.Rounded) runs lossy synchronous rounds, each delivering
every message in flight, with at most --isolations isolated members per
run, drawn afresh every --period rounds over the first --fault-rounds
rounds (the communication closure paper's Algorithm 1); coverage mutates
a corpus of earlier runs' schedules and keeps those that reach a new
abstract state, and prints the abstract states covered (docs/fuzz-modes.md).
It tries seeds N, N+1, ... until a run
ends in a violation with at least --min-deliveries deliveries (and, with
--violation, a fingerprint that starts with it), for at most
--runs seeds (default: no limit) and at most --budget (default 1m). On a
terminal it shows the seeds tried, the deliveries per second and the longest
violating run so far. It prints the exact command that regenerates the trace
it wrote; the same flags give the same trace, byte for byte.

The trace goes to -o, default SYSTEM.trace or BUG.trace, which must not
exist yet (fuzz overwrites only a file -o names).

A campaign: --dir DIR writes every failing run (not just the first) as
DIR/NAME-SEED.trace and goes on for --runs seeds or --budget; --shard I/N
tries only the seeds N+I, N+I+N, ... of them (shard I of N, from 0), so N
machines split a campaign, and --shard N takes I from JOB_COMPLETION_INDEX,
as a Kubernetes Indexed Job sets it. demi triage groups the traces by bug
(docs/campaigns.md).

A census: --census makes --runs runs (default 10), each to its end (a
violation ends a run too), writes no trace, and prints how many deliveries
of each message type and timer they made, per 1,000 deliveries: what the
system spends a fuzzed run on (docs/fuzzing.md measures elections with and
without virtual time this way).

Exit status 0 when a violation was found and written, 1 when none was found
within the limits, 2 on bad input, 128+N on signal N (130 for Ctrl-C).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if system == "" {
				return badInput(errors.New("--system is required (see demi systems)"))
			}
			sys, err := e.cat.Lookup(system)
			if err != nil {
				return badInput(err)
			}
			given, err := of.options(sys)
			if err != nil {
				return badInput(err)
			}
			if network != "" {
				return badInput(errors.New("--network is chosen by the system's options (see demi systems)"))
			}
			if err := checkFuzzFlags(cmd.Flags(), &cfg, extCount, budget); err != nil {
				return err
			}
			if cfg.Mode, err = record.LookupMode(mode); err != nil {
				return badInput(fmt.Errorf("--mode: %w", err))
			}
			cov, err := modeFlags(cmd.Flags(), &cfg, sys, rm)
			if err != nil {
				return err
			}
			if cfg.Mode != record.Walk && !cmd.Flags().Changed("timer-prob") {
				cfg.TimerProb = 0 // the mode draws it
			}
			if err := applyShard(cmd.Flags(), shard, &cfg); err != nil {
				return err
			}
			cfg.MaxExternals = extCount
			if extCount == 0 {
				cfg.MaxExternals = -1
			}
			if cfg.Mode != record.Walk && !cmd.Flags().Changed("externals") {
				cfg.MaxExternals = 0 // the mode draws it
			}
			if census {
				if cmd.Flags().Changed("output") || dir != "" {
					return badInput(errors.New("--census writes no trace: it excludes -o and --dir"))
				}
				if !cmd.Flags().Changed("runs") {
					cfg.Runs = defaultCensusRuns
				}
				return fuzzCensus(cmd, e, sys, given, cfg, budget)
			}
			if !cmd.Flags().Changed("runs") {
				cfg.Runs = math.MaxInt // until a violation or the budget
			}
			if dir != "" {
				if cmd.Flags().Changed("output") {
					return badInput(errors.New("-o and --dir exclude each other: --dir writes every failing run, -o the first"))
				}
				return fuzzCampaign(cmd, e, sys, given, cfg, budget, dir, of.bugs)
			}
			flag := "-o"
			if out == "" {
				name := system
				if len(of.bugs) > 0 {
					name = strings.Join(of.bugs, "+")
				}
				out, flag = name+".trace", "output"
			}
			if err := checkOutput(flag, out, flag != "-o"); err != nil {
				return err
			}
			outFile := planOutput(flag, out, "")
			prog := newFuzzProgress(e.stderr, budget)
			cfg.Progress = prog.update
			ctx, cancel := context.WithTimeout(cmd.Context(), budget)
			defer cancel()
			t, runs, err := record.Search(ctx, sys, given, cfg)
			prog.done()
			cov.print(e.stdout)
			if cmd.Context().Err() != nil {
				return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted after %d run(s); no trace written", runs)}
			}
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			if t == nil {
				limit := fmt.Sprintf("in %d run(s) of %d steps from seed %d", runs, cfg.MaxSteps, cfg.Seed)
				if err != nil {
					limit += fmt.Sprintf(" (--budget %s ran out)", budget)
				}
				what := "violation"
				if cfg.Violation != "" {
					what = fmt.Sprintf("violation starting %q", cfg.Violation)
				}
				return notFound(fmt.Errorf("no %s with at least %d deliveries %s", what, cfg.MinDeliveries, limit))
			}
			// A trace that does not replay the same would mislead every
			// command that reads it: check it before it is written.
			if err := checkReplays(cmd.Context(), sys, t); err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted while replaying the trace found; no trace written")}
				}
				return notFound(err)
			}
			out, kept := outFile.writeTrace(t)
			if out == "" {
				return kept
			}
			h := t.Header
			fmt.Fprintf(e.stdout, "violation %s\n  %s\nafter %d deliveries and %d externals (seed %d, run %d)\nwrote %s\nregenerate with: %s\n",
				record.Escape(h.Violation.Fingerprint), record.Escape(h.Violation.Detail), h.Deliveries, h.Externals,
				h.Seed, runs, out, regenerateCommand(cmd.Root().Name(), cmd.Flags(), h.Seed, cov.runs(runs), out))
			return kept
		},
	}
	f := cmd.Flags()
	f.StringVar(&system, "system", "", "system to run (see demi systems)")
	of.register(cmd, "")
	f.StringVarP(&out, "output", "o", "", "trace file to write (default SYSTEM.trace or BUG.trace, which must not exist)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed of the first run")
	f.IntVar(&cfg.Runs, "runs", 0, "number of seeds to try (default: until a violation or the budget)")
	f.DurationVar(&budget, "budget", DefaultFuzzBudget, "wall-clock budget of the search")
	f.IntVar(&cfg.MaxSteps, "max-steps", 3000, "maximum deliveries per run")
	f.IntVar(&extCount, "externals", 100, "maximum random external events per run, after setup (swarm may draw it unless given)")
	f.Float64Var(&cfg.ExternalProb, "external-prob", 0, "chance a step injects an external event (default 2*externals/max-steps; swarm may draw it)")
	f.Float64Var(&cfg.TimerProb, "timer-prob", 0.05, "chance a delivery fires a timer rather than a message (swarm draws it unless given)")
	f.IntVar(&cfg.CheckEvery, "check-every", 1, "check the invariant every N deliveries")
	f.IntVar(&cfg.MinDeliveries, "min-deliveries", 0, "keep only violations found after at least this many deliveries")
	f.StringVar(&cfg.Violation, "violation", "", "keep only violations whose fingerprint starts with this (e.g. ElectionSafety)")
	f.StringVar(&mode, "mode", record.Modes()[0].Name(), "how each run is made: "+modeNames())
	f.IntVar(&rm.Isolations, "isolations", 2, "--mode rounds: most isolated members per run, d (1 to 64)")
	f.IntVar(&rm.Period, "period", 4, "--mode rounds: rounds between draws of the isolated set, k (1 to 1000)")
	f.IntVar(&rm.Rounds, "fault-rounds", 40, "--mode rounds: rounds in which members may be isolated, r (1 to 100000)")
	f.StringVar(&shard, "shard", "", "I/N: try only shard I (from 0) of N of the seeds; N alone: I from $JOB_COMPLETION_INDEX")
	f.StringVar(&dir, "dir", "", "write every failing run to this directory (a campaign) instead of the first to -o")
	f.BoolVar(&census, "census", false, fmt.Sprintf("write no trace: make --runs runs (default %d) to their end and count their deliveries by message type", defaultCensusRuns))
	f.StringVar(&network, "network", "", "")
	_ = f.MarkHidden("network")
	return cmd
}

// checkFuzzFlags validates every numeric flag of fuzz before anything runs.
func checkFuzzFlags(f *pflag.FlagSet, cfg *record.SearchConfig, externals int, budget time.Duration) error {
	bad := func(flag string, v any, want string) error {
		return badInput(fmt.Errorf("--%s %v: %s", flag, v, want))
	}
	switch {
	case cfg.MaxSteps < 1 || cfg.MaxSteps > maxFuzzSteps:
		return bad("max-steps", cfg.MaxSteps, fmt.Sprintf("want 1 to %d", maxFuzzSteps))
	case f.Changed("runs") && cfg.Runs < 1:
		return bad("runs", cfg.Runs, "want at least 1")
	case externals < 0 || externals > maxFuzzExternals:
		return bad("externals", externals, fmt.Sprintf("want 0 to %d", maxFuzzExternals))
	case !(cfg.ExternalProb >= 0 && cfg.ExternalProb <= 1):
		return bad("external-prob", cfg.ExternalProb, "want a probability from 0 to 1 (0: 2*externals/max-steps)")
	case !(cfg.TimerProb > 0 && cfg.TimerProb <= 1):
		return bad("timer-prob", cfg.TimerProb, "want a probability above 0, at most 1")
	case cfg.CheckEvery < 1:
		return bad("check-every", cfg.CheckEvery, "want at least 1")
	case cfg.MinDeliveries < 0 || cfg.MinDeliveries > cfg.MaxSteps:
		return bad("min-deliveries", cfg.MinDeliveries, fmt.Sprintf("want 0 to --max-steps (%d)", cfg.MaxSteps))
	case budget <= 0:
		return bad("budget", budget, "want a positive duration")
	}
	return nil
}

// regenerateCommand is the demi fuzz command line that writes the same
// trace again: the flags the user gave, with the seed of the run found and
// a single run; or, when runs > 0 (a mode whose runs depend on the runs
// before them, as coverage's do), the first seed and shard the user gave
// and that many runs.
func regenerateCommand(program string, f *pflag.FlagSet, seed uint64, runs int, out string) string {
	args := []string{program, "fuzz"}
	f.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "seed", "runs", "budget", "output", "dir":
			return
		case "shard":
			if runs == 0 {
				return
			}
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name, shellQuote(v))
			}
			return
		}
		args = append(args, "--"+fl.Name, shellQuote(fl.Value.String()))
	})
	if m := f.Lookup("mode"); m != nil && !m.Changed { // the default may change; the command must not
		args = append(args, "--mode", m.Value.String())
	}
	if runs > 0 {
		first := "1"
		if fl := f.Lookup("seed"); fl != nil {
			first = fl.Value.String()
		}
		args = append(args, "--seed", first, "--runs", fmt.Sprint(runs), "-o", shellQuote(out))
	} else {
		args = append(args, "--seed", fmt.Sprint(seed), "--runs", "1", "-o", shellQuote(out))
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/=+:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fuzzProgress shows a search's progress on stderr when it is a terminal:
// seeds tried, deliveries per second, the longest violating run so far.
type fuzzProgress struct {
	w      io.Writer
	tty    bool
	budget time.Duration
	start  time.Time
	mu     sync.Mutex
	last   time.Time
	live   bool
}

func newFuzzProgress(w io.Writer, budget time.Duration) *fuzzProgress {
	p := &fuzzProgress{w: w, budget: budget, start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *fuzzProgress) update(s record.SearchProgress) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 200 * time.Millisecond
	if !p.tty {
		every = 10 * time.Second // a log: a plain line now and then
	}
	if p.last.IsZero() {
		p.last = p.start
	}
	if now.Sub(p.last) < every {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	best := "no violation yet"
	if s.Best >= 0 {
		best = fmt.Sprintf("longest violation %d deliveries (%s)", s.Best, record.Escape(s.BestViolation))
	}
	line := fmt.Sprintf("fuzz: %d seeds  %.0f deliveries/s  %s  %.0fs left",
		s.Runs, float64(s.Deliveries)/max(el.Seconds(), 1e-3), best, max(p.budget-el, 0).Seconds())
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.live = true
}

func (p *fuzzProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.live = false
	}
}
