package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
)

func fuzzCmd(e *env) *cobra.Command {
	var (
		system   string
		of       optionFlags
		out      string
		cfg      record.SearchConfig
		network  string
		extCount int
	)
	cmd := &cobra.Command{
		Use:   "fuzz --system S [--bug B] [--seed N] [--max-steps N] -o FILE",
		Short: "Run a system at random until an invariant breaks, and record the trace",
		Long: `fuzz runs the system's setup events, then random external events (by the
system's weights) interleaved with random deliveries that respect the network
semantics, checking the invariant every --check-every deliveries, until a
violation or --max-steps deliveries. With --runs R it tries seeds N, N+1, ...
until a run ends in a violation with at least --min-deliveries deliveries.
The same flags give the same trace, byte for byte.

Exit status 0 when a violation was found and written, 1 when none was found
within the limits, 2 on bad input.`,
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
			cfg.MaxExternals = extCount
			if extCount == 0 {
				cfg.MaxExternals = -1
			}
			if out == "" {
				name := system
				if len(of.bugs) > 0 {
					name = strings.Join(of.bugs, "+")
				}
				out = name + ".trace"
			}
			t, runs, err := record.Search(cmd.Context(), sys, given, cfg)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
				}
				return err
			}
			if t == nil {
				return notFound(fmt.Errorf("no violation with at least %d deliveries in %d run(s) of %d steps from seed %d",
					cfg.MinDeliveries, runs, cfg.MaxSteps, cfg.Seed))
			}
			if err := t.WriteFile(out); err != nil {
				return err
			}
			h := t.Header
			fmt.Fprintf(e.stdout, "violation %s\n  %s\nafter %d deliveries and %d externals (seed %d, run %d of at most %d)\nwrote %s\n",
				h.Violation.Fingerprint, h.Violation.Detail, h.Deliveries, h.Externals, h.Seed, runs, max(cfg.Runs, 1), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&system, "system", "", "system to run (see demi systems)")
	of.register(cmd, "")
	f.StringVarP(&out, "output", "o", "", "trace file to write (default SYSTEM.trace or BUG.trace)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed of the first run")
	f.IntVar(&cfg.Runs, "runs", 1, "number of seeds to try")
	f.IntVar(&cfg.MaxSteps, "max-steps", 3000, "maximum deliveries per run")
	f.IntVar(&extCount, "externals", 100, "maximum random external events per run, after setup")
	f.Float64Var(&cfg.ExternalProb, "external-prob", 0, "chance a step injects an external event (default 2*externals/max-steps)")
	f.Float64Var(&cfg.TimerProb, "timer-prob", 0.05, "chance a delivery fires a timer rather than a message")
	f.IntVar(&cfg.CheckEvery, "check-every", 1, "check the invariant every N deliveries")
	f.IntVar(&cfg.MinDeliveries, "min-deliveries", 0, "keep only violations found after at least this many deliveries")
	f.StringVar(&network, "network", "", "")
	_ = f.MarkHidden("network")
	return cmd
}
