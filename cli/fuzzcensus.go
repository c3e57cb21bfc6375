package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
)

// defaultCensusRuns is how many runs fuzz --census makes without --runs.
const defaultCensusRuns = 10

// fuzzCensus is fuzz --census: cfg.Runs runs from cfg.Seed, each to its
// end, counted by record.Census; no trace is written. It exits 0 when
// every run was made, whether or not some ended in a violation.
func fuzzCensus(cmd *cobra.Command, e *env, sys *record.System, given record.Options, cfg record.SearchConfig, budget time.Duration) error {
	var c record.Census
	cfg.Observe = func(r record.RunResult) { c.Add(r.Sim, r.Violation) }
	prog := newFuzzProgress(e.stderr, budget)
	cfg.Progress = prog.update
	ctx, cancel := context.WithTimeout(cmd.Context(), budget)
	defer cancel()
	_, err := record.SearchAll(ctx, sys, given, cfg, func(*record.Trace) bool { return true })
	prog.done()
	if cmd.Context().Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted after %d run(s)", c.Runs)}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	limit := ""
	if err != nil {
		limit = fmt.Sprintf(" (--budget %s ran out)", budget)
	}
	fmt.Fprintf(e.stdout, "census of %d run(s) from seed %d%s: %d deliveries, %d external events, %d run(s) ended in a violation\n",
		c.Runs, cfg.Seed, limit, c.Deliveries, c.Externals, c.Violations)
	t := newTable(e.stdout, "MESSAGE", "KIND", "DELIVERIES", "PER 1000 DELIVERIES")
	for _, r := range c.Rows() {
		kind := "message"
		if r.Timer {
			kind = "timer"
		}
		if err := t.Append(record.Escape(r.Type), kind, r.Deliveries, fmt.Sprintf("%.1f", c.PerThousand(r))); err != nil {
			return err
		}
	}
	return t.Render()
}
