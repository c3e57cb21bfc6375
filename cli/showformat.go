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

// checkShowModes refuses two ways of printing at once (--json with
// --format mermaid, --rounds with --json): show prints one.
func checkShowModes(asJSON, byRound bool, format string) error {
	var modes []string
	if asJSON {
		modes = append(modes, "--json")
	}
	if byRound {
		modes = append(modes, "--rounds")
	}
	if format != "" && format != "text" && !(asJSON && format == "json") {
		modes = append(modes, "--format "+format)
	}
	if len(modes) > 1 {
		return badInput(fmt.Errorf("%s and %s ask for two outputs; give one", modes[0], modes[1]))
	}
	return nil
}

// showFormatted prints a trace in one of showFormats: a bug-report body,
// its sequence diagram alone, or a ShiViz log.
func showFormatted(ctx context.Context, e *env, name, format string, t *record.Trace, sys *record.System) error {
	st, err := report.Build(ctx, name, sys, t)
	if err != nil {
		return replayFailure(ctx, err)
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
