package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
)

func checkCmd(e *env) *cobra.Command {
	var (
		out       string
		budget    time.Duration
		schedules int
		of        optionFlags
	)
	cmd := &cobra.Command{
		Use:   "check FILE [--opt name=value] [--bug B] [--no-bug B] [-o OUT] [--schedules N] [--budget DURATION]",
		Short: "Check whether a trace's violation is still reachable after a code or option change",
		Long: `check asks whether the violation a trace records is still reachable: first by
exact replay, then, when the run leaves the trace (after a fix or any change
to what a handler sends), the way minimization checks a candidate: the same
external events in order, each delivery matched by sender, receiver and
message type (messages of types the trace never delivered are delivered as
soon as they can be in a first schedule), with backtracks to other pending
messages of the same type (and then of any type) to the same receiver, up to
--schedules schedules or --budget of wall-clock time. See package check. No
schedule reaching the violation is evidence that it is fixed, not proof.

--opt name=value, --bug NAME and --no-bug NAME change the trace's options
(turn a bug switch off to see whether the trace still finds another way to
the violation).

When the violation is still reachable, the schedule that reaches it is
written to -o, by default NAME.check.trace next to the input (NAME.check-2.trace
and so on if that exists: check never overwrites the input or a file it did
not name). When exact replay reproduces the violation, the trace is written
with its changed options (or to -o), or else, being the input itself, not at
all.

Exit status 0 when the violation is no longer reachable within the budget,
1 when it still is, 2 on bad input, 130 when interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := args[0]
			if budget <= 0 {
				return badInput(errors.New("--budget must be positive"))
			}
			if schedules < 1 {
				return badInput(errors.New("--schedules must be at least 1"))
			}
			if out != "" {
				if err := checkOutputOf("check", in, "-o", out, false); err != nil {
					return err
				}
			}
			outFile := planOutput("-o", out, in)
			orig, sys, err := e.loadTrace(cmd.Context(), in)
			if err != nil {
				return err
			}
			if orig.Header.Violation == nil {
				return badInput(fmt.Errorf("%s records no violation", in))
			}
			given := record.Options{}
			if of.set() {
				if given, err = of.options(sys); err != nil {
					return badInput(err)
				}
			}
			t, err := orig.WithOptions(sys, given)
			if err != nil {
				return badInput(err)
			}
			if ch := describeChanges(sys, orig, t); ch != "" {
				fmt.Fprintf(e.stdout, "checking with options changed from the trace's: %s\n", ch)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), budget)
			defer cancel()
			res, err := check.Run(ctx, sys, orig, check.Config{Options: given, MaxSchedules: schedules})
			if err != nil && cmd.Context().Err() != nil {
				return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
			}
			timedOut := err != nil && errors.Is(err, context.DeadlineExceeded) && res != nil
			if err != nil && !timedOut {
				return err
			}
			want := res.Violation.Fingerprint
			switch rep := res.Replay; {
			case rep.Reproduced:
				fmt.Fprintf(e.stdout, "%s: exact replay reproduces %s after %d of %d events\n", in, want, rep.Events, len(t.Events))
			case rep.Divergence != nil:
				fmt.Fprintf(e.stdout, "%s: exact replay %s\n", in, rep.Divergence)
			default:
				fmt.Fprintf(e.stdout, "%s: exact replay does not reproduce %s (got %s)\n", in, want, rep.Violation)
			}
			if err := legacyVerdict(orig, res); err != nil {
				return err
			}
			switch res.Outcome {
			case check.Unreachable:
				how := fmt.Sprintf("of the %d tried (the budget)", res.Schedules)
				switch {
				case timedOut:
					how = fmt.Sprintf("of the %d tried before the time budget (%s) ran out", res.Schedules, budget)
				case res.Exhausted:
					how = fmt.Sprintf("of the %d within reach (all tried)", res.Schedules)
				}
				fmt.Fprintf(e.stdout, "no schedule %s reaches %s: the violation is no longer reachable from this trace\n", how, want)
				return nil
			case check.Reachable:
				h := res.Trace.Header
				fmt.Fprintf(e.stdout, "schedule %d of at most %d reaches %s after %d deliveries and %d externals\n",
					res.Schedules, schedules, want, h.Deliveries, h.Externals)
			}
			changed := describeChanges(sys, orig, t) != ""
			if res.Outcome == check.Reachable || changed || out != "" {
				if out == "" {
					if out, err = freePath(strings.TrimSuffix(in, ".trace") + ".check"); err != nil {
						return err
					}
					if err := checkOutput("output", out, true); err != nil {
						return err
					}
					outFile = planOutput("output", out, in)
				}
				var kept error
				if out, kept = outFile.writeTrace(res.Trace); out == "" {
					return kept
				}
				fmt.Fprintf(e.stdout, "wrote %s\n", out)
				if kept != nil {
					return kept
				}
			} else {
				fmt.Fprintln(e.stdout, "the trace itself reaches it; nothing written")
			}
			return notFound(fmt.Errorf("the violation %s is still reachable", want))
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write the schedule that reaches the violation (default NAME.check.trace next to the input)")
	cmd.Flags().DurationVar(&budget, "budget", time.Minute, "wall-clock budget")
	cmd.Flags().IntVar(&schedules, "schedules", check.DefaultMaxSchedules, "schedules to try after exact replay")
	of.register(cmd, " instead of the trace's")
	return cmd
}

// freePath returns stem.trace, or stem-2.trace, stem-3.trace, ...: the
// first name no file has.
func freePath(stem string) (string, error) {
	for i := 1; i <= 1000; i++ {
		p := stem + ".trace"
		if i > 1 {
			p = fmt.Sprintf("%s-%d.trace", stem, i)
		}
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p, nil
		} else if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no free file name like %s.trace", stem)
}

// legacyVerdict refuses to call fixed a trace an older demi wrote whose
// violation fingerprint this demi cannot bring to today's form (see
// record.Header.Legacy) when its exact replay still ends in a panic: the
// "unreachable" verdict could come from the fingerprint rules, not from
// the code. It says so (bad input: the trace must be regenerated or
// replayed by hand) rather than exit 0.
func legacyVerdict(orig *record.Trace, res *check.Result) error {
	rep := res.Replay
	if orig.Header.Legacy == "" || res.Outcome != check.Unreachable || rep.Violation == nil ||
		!strings.HasPrefix(rep.Violation.Fingerprint, "panic: ") {
		return nil
	}
	return badInput(fmt.Errorf("cannot tell whether the violation is fixed: the trace was written by an older demi that fingerprinted it %q, "+
		"which this demi reads as %q, and its exact replay ends in %q after %d events; regenerate the trace (the fuzz command in its note) or compare the two by hand",
		orig.Header.Legacy, orig.Header.Violation.Fingerprint, rep.Violation.Fingerprint, rep.Events))
}
