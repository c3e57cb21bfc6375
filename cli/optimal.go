package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/spf13/cobra"
)

func optimalCmd(e *env) *cobra.Command {
	var (
		out       string
		maxDel    int
		budget    time.Duration
		maxStates int
		workers   int
		subsets   bool
		noBound   bool
	)
	cmd := &cobra.Command{
		Use:   "optimal FILE [--max-deliveries K] [-o OUT]",
		Short: "Search exhaustively for the smallest schedule that reproduces a trace's violation",
		Long: `optimal searches every schedule with the trace's external events, in their order,
for the one with the fewest deliveries (at most --max-deliveries, by default
one less than FILE has, which asks whether anything smaller exists) that
still triggers the same violation (same fingerprint). With --subsets it also
chooses which external events happen (each, in order, applied or left out)
and counts deliveries plus external events, up to --max-deliveries plus the
input's external events: the optimum over every subsequence of the input's
external events.

The search deepens a bound on that cost one at a time, walking every
schedule within it depth first on forked runs (no replay). A state is a
hash of every actor's state (its value field by field, its stable storage
and random source), the cut links, the pending messages and the next
external event, so schedules that reach the same state are expanded once
per bound; orders of deliveries to different actors are recognised before
they are run, a delivery that changes nothing is not followed, and the
last step of a schedule is only checked. A system that supplies a lower
bound on the events still needed to reach the violation (record.System.
LowerBound; raft, paxos and etcdraft do) has every state cut whose bound exceeds its budget
left; the output says how many, and --no-lower-bound turns it off (the
answer is the same, only slower). With -j N, N walkers share each
bound (the answer does not depend on N). When it finishes, the answer is exact: it says whether FILE
(typically a reference trace) is optimal over those external events
(and, with --subsets, their subsequences; other external events are
outside the proof), and when it finds a smaller
schedule it writes it to -o (default NAME.optimal.trace next to the input),
verified by exact replay. Stopped early (--budget, --max-states), it has
still proved that nothing up to the last bound it finished reproduces the
violation. The states grow exponentially with the bound (about threefold
per delivery on the Raft examples): it suits optima of a dozen or two
events.

The input must reproduce its violation (checked first by exact replay).

Exit status 0 when the search finished (whatever it found), 1 when the input
does not reproduce its violation or the search stopped on --budget or
--max-states before finishing, 2 on bad input, 128+N on signal N (130 for
Ctrl-C).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := args[0]
			if maxDel < 0 {
				return badInput(errors.New("--max-deliveries must be at least 0"))
			}
			if err := checkOptimalFlags(cmd, budget, maxStates, workers); err != nil {
				return err
			}
			t, sys, out, err := e.loadFailingTrace(cmd.Context(), "optimal", in, out, ".optimal.trace")
			if err != nil {
				return err
			}
			outFile := planOutput("-o", out, in)
			if !cmd.Flags().Changed("max-deliveries") {
				maxDel = max(t.Header.Deliveries-1, 0)
			}
			// The input must reproduce its own violation, or there is
			// nothing to search for.
			rep, err := replay.Run(cmd.Context(), sys, t)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
				}
				return err
			}
			if !rep.Reproduced {
				return notFound(fmt.Errorf("%s does not reproduce its violation %s (%s); nothing to search for",
					in, record.Escape(t.Header.Violation.Fingerprint), rep.Why()))
			}
			// A system whose runs cannot be forked (actors holding a
			// library's method values) cannot be searched: say so before
			// the search prints anything.
			if err := optimal.Forks(cmd.Context(), sys, t); err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
				}
				return badInput(fmt.Errorf("optimal: %w", err))
			}
			ctx := cmd.Context()
			if budget > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, budget)
				defer cancel()
			}
			unit, scope := "deliveries", "its external events"
			if subsets {
				unit, scope = "deliveries plus externals", "its external events and their subsequences"
			}
			if workers == 0 {
				workers = runtime.NumCPU()
			}
			workers = min(workers, maxWorkers())
			res, err := optimal.Search(ctx, sys, t, optimal.Config{MaxDeliveries: maxDel, MaxStates: maxStates, Subsets: subsets, Workers: workers, NoLowerBound: noBound,
				Progress: func(p optimal.Progress) {
					fmt.Fprintf(e.stderr, "optimal: no schedule with at most %d %s; %d states, %d expanded, %.1fs\n",
						p.Bound, unit, p.States, p.Expanded, p.Elapsed.Seconds())
				}})
			if err != nil {
				return err
			}
			h := t.Header
			fmt.Fprintf(e.stdout, "%s: %d deliveries, %d externals (%s)\n", in, h.Deliveries, h.Externals, h.Violation.Fingerprint)
			fmt.Fprintf(e.stdout, "searched %d states (%d expanded) in %.1fs\n", res.States, res.Expanded, res.Seconds)
			if res.LowerBound {
				fmt.Fprintf(e.stdout, "the system's lower bound cut %d states\n", res.BoundCuts)
			}
			if cmd.Context().Err() != nil {
				return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
			}
			// Without --subsets the cost is the deliveries; with it, the
			// deliveries plus the external events applied.
			have, got, bound := h.Deliveries, res.Deliveries, maxDel
			if subsets {
				have, got = h.Deliveries+h.Externals, res.Deliveries+res.Externals
				bound = maxDel + len(t.Externals())
			}
			switch {
			case res.Trace != nil && got < have:
				where, kept := outFile.writeTrace(res.Trace)
				if where == "" {
					return kept
				}
				fmt.Fprintf(e.stdout, "smaller schedule found: %d deliveries and %d externals (the input is not optimal)\nwrote %s\n",
					res.Deliveries, res.Externals, where)
				if kept != nil {
					return kept
				}
			case res.Trace != nil:
				fmt.Fprintf(e.stdout, "the input is optimal over %s: no schedule with fewer than %d %s reproduces the violation\n", scope, have, unit)
			case res.Exhausted && bound+1 >= have:
				fmt.Fprintf(e.stdout, "the input is optimal over %s: no schedule with fewer than %d %s reproduces the violation\n", scope, have, unit)
			case res.Exhausted:
				fmt.Fprintf(e.stdout, "no schedule with at most %d %s reproduces the violation\n", bound, unit)
			default:
				msg := "stopped before finishing"
				if res.Searched >= 0 {
					msg = fmt.Sprintf("stopped before finishing: no schedule with at most %d %s reproduces the violation", res.Searched, unit)
				}
				fmt.Fprintln(e.stdout, msg)
				return notFound(errors.New("search not finished (raise --budget or --max-states)"))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write a smaller schedule (default NAME.optimal.trace next to the input)")
	cmd.Flags().IntVar(&maxDel, "max-deliveries", 0, "the largest number of deliveries searched (default: one less than FILE has)")
	cmd.Flags().DurationVar(&budget, "budget", 0, "stop after this long (default: no limit)")
	cmd.Flags().IntVar(&maxStates, "max-states", 0, "stop once this many distinct states are known, expanded or queued (default 5,000,000)")
	cmd.Flags().IntVarP(&workers, "jobs", "j", 0, "walkers of a bound in parallel (default: all cores; the answer does not depend on it)")
	cmd.Flags().BoolVar(&subsets, "subsets", false, "also search every subsequence of the external events (cost: deliveries + externals)")
	cmd.Flags().BoolVar(&noBound, "no-lower-bound", false, "ignore the system's lower bound on the cost left (same answer, to compare)")
	// --global chose the global-state search, now the only one.
	cmd.Flags().Bool("global", true, "")
	_ = cmd.Flags().MarkDeprecated("global", "the global-state search is now the only one")
	return cmd
}

// checkOptimalFlags validates optimal's numeric flags before any work: a
// flag given must mean what it says (--max-states 0 is not "the default",
// -j -1 is not "all cores").
func checkOptimalFlags(cmd *cobra.Command, budget time.Duration, maxStates, workers int) error {
	f := cmd.Flags()
	switch {
	case f.Changed("budget") && budget <= 0:
		return badInput(fmt.Errorf("--budget %s: want a positive duration", budget))
	case f.Changed("max-states") && maxStates < 1:
		return badInput(fmt.Errorf("--max-states %d: want at least 1", maxStates))
	case f.Changed("jobs") && (workers < 1 || workers > maxJobs):
		return badInput(fmt.Errorf("-j %d: want 1 to %d", workers, maxJobs))
	}
	return nil
}
