package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/demi-project/demi/replay"
	"github.com/spf13/cobra"
)

func replayCmd(e *env) *cobra.Command {
	var (
		times       int
		of          optionFlags
		stepThrough bool
	)
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a trace exactly and check that it reproduces its violation",
		Long: `replay re-executes every event of the trace in order and checks the invariant
after each one. It reports whether the recorded violation (same fingerprint)
reproduces, or the first divergence: the event index, what the trace expected
and what happened. --times N replays N times to catch nondeterminism.
--opt name=value, --bug NAME and --no-bug NAME replay the same schedule with
options changed from the trace's header (after a fix, for example: the run
then leaves the schedule where the fix changes what a handler sends).

--step walks through the trace step by step instead (see the README):
a terminal UI when stdin is a terminal, else commands read from stdin, one
a line, each screen printed as plain text (try: echo help | PROG replay
--step FILE).

Exit status 0 when the violation reproduces every time, 1 when it does not,
2 on bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if times < 1 {
				return badInput(errors.New("--times must be at least 1"))
			}
			orig, sys, err := e.loadTrace(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			t, err := of.apply(orig, sys)
			if err != nil {
				return err
			}
			if stepThrough {
				return e.stepThrough(cmd, args[0], t, sys, describeChanges(sys, orig, t))
			}
			if ch := describeChanges(sys, orig, t); ch != "" {
				fmt.Fprintf(e.stdout, "replaying with options changed from the trace's: %s\n", ch)
			}
			want := t.Header.Violation
			if want == nil {
				return badInput(fmt.Errorf("%s records no violation", args[0]))
			}
			results, err := replay.Repeat(cmd.Context(), sys, t, times)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
				}
				return err
			}
			ok, first := 0, results[0]
			for i, r := range results {
				switch {
				case r.Reproduced:
					ok++
				case r.Divergence != nil:
					fmt.Fprintf(e.stdout, "run %d: %s\n", i+1, r.Divergence)
				default:
					fmt.Fprintf(e.stdout, "run %d: violation not reproduced (got %s)\n", i+1, r.Violation)
				}
				if r.Reproduced != first.Reproduced || r.Events != first.Events {
					fmt.Fprintf(e.stdout, "run %d: nondeterminism: stopped after %d events, run 1 after %d\n", i+1, r.Events, first.Events)
				}
			}
			fmt.Fprintf(e.stdout, "%s: %d/%d replays reproduced %s after %d of %d events\n",
				args[0], ok, times, want.Fingerprint, first.Events, len(t.Events))
			if ok != times {
				return notFound(fmt.Errorf("violation reproduced %d of %d times", ok, times))
			}
			return nil
		},
	}
	cmd.Long = strings.ReplaceAll(cmd.Long, "PROG", e.prog.Name)
	cmd.Flags().IntVar(&times, "times", 1, "replay N times")
	of.register(cmd, " instead of the trace's")
	cmd.Flags().BoolVar(&stepThrough, "step", false, "step through the trace (terminal UI; scripted when stdin is not a terminal)")
	return cmd
}
