package cli

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
)

// checkShowFormat rejects an unknown --format before any work.
func checkShowFormat(format string) error {
	switch format {
	case "", "text", "json", "markdown", "mermaid", "shiviz":
		return nil
	}
	return badInput(fmt.Errorf("unknown --format %q (want text, json, markdown, mermaid or shiviz)", format))
}

// showFormatted prints a trace in one of showFormats: a bug-report body,
// its sequence diagram alone, or a ShiViz log.
func showFormatted(ctx context.Context, e *env, name, format string, t *record.Trace, sys *record.System) error {
	st, err := report.Build(ctx, name, sys, t)
	if err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: ExitInterrupted, Err: err}
		}
		return badInput(err)
	}
	st.Program, st.Install = e.prog.Name, e.prog.Install
	switch format {
	case "markdown":
		return st.WriteMarkdown(e.stdout)
	case "mermaid":
		return st.WriteMermaid(e.stdout)
	case "shiviz":
		return st.WriteShiViz(e.stdout)
	}
	return checkShowFormat(format)
}
