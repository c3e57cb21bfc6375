package cli

import (
	"fmt"

	"github.com/demi-project/demi/explain"
	"github.com/spf13/cobra"
)

func explainCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "explain FILE",
		Short: "Say why each event of a minimized trace is needed: what happens without it",
		Long: `explain runs the trace once per event, with that event left out and the rest
followed loosely (as demi check does: a delivery stands for the pending
message with the same sender, receiver and type; a step nothing matches is
skipped), and prints one line per event: the first actor state that differs
from the original run ("raft-2 never has role=candidate"), and whether the
trace's violation is still reached. An event that changes no state and whose
messages are never delivered, but moves its actor's random source, is said
to change only random draws. The trace must replay exactly, record a
violation and have at most 1000 events (minimize it first).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, sys, err := e.loadTrace(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			lines, err := explain.Run(cmd.Context(), sys, t)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: err}
				}
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			return explain.Write(e.stdout, args[0], t, lines)
		},
	}
}
