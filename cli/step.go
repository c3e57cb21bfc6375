package cli

import (
	"os"

	"github.com/demi-project/demi/internal/step"
	"github.com/demi-project/demi/internal/step/tui"
	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stepThrough is `demi replay --step FILE`: the terminal UI when stdin is
// a terminal, else the scripted mode (commands read from stdin, one a
// line, each screen printed as plain text).
//
// changed lists the options changed from the trace's (--opt, --bug,
// --no-bug): the trace is then followed loosely, as far as it still
// applies.
func (e *env) stepThrough(cmd *cobra.Command, path string, t *record.Trace, sys *record.System, changed string) error {
	ctx := cmd.Context()
	s, err := step.Open(ctx, sys, t, changed != "")
	if err != nil {
		return badInput(err)
	}
	w, err := step.NewWalk(ctx, sys, path, s)
	if err != nil {
		return badInput(err)
	}
	w.Program = e.prog.Name
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return tui.Run(ctx, w, f, e.stdout)
	}
	if err := step.Script(ctx, w, in, e.stdout); err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: ctx.Err()}
		}
		return badInput(err)
	}
	return nil
}
