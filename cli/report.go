package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/demi-project/demi/internal/paths"
	"github.com/demi-project/demi/report"
	"github.com/spf13/cobra"
)

func reportCmd(e *env) *cobra.Command {
	var out, stats string
	cmd := &cobra.Command{
		Use:   "report FILE [--stats STATS.json] [-o OUT.html]",
		Short: "Write a self-contained HTML page about a trace, to attach to a bug report",
		Long: `report writes one HTML page that opens offline (every style and script inline,
nothing fetched): what broke, a space-time diagram (one line per actor, an
arrow per delivery, dotted for messages never delivered, round and phase
bands, external events, crashes and the violation marked; hover or click an
arrow for its message), the event table, the round view and the commands
that reproduce the failure. With --stats (the file demi minimize --stats
wrote) it adds the minimization stages and the pace plot.

OUT defaults to FILE with its .trace suffix replaced by .html; it is written
atomically and never overwrites FILE.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := args[0]
			defaulted := out == ""
			if defaulted {
				out = strings.TrimSuffix(in, ".trace") + ".html"
			}
			if err := checkOutputOf("report", in, "-o", out, defaulted); err != nil {
				return err
			}
			if err := paths.Distinct([]paths.Named{{What: "--stats", Path: stats}}, []paths.Named{{What: "-o", Path: out}}); err != nil {
				return badInput(err)
			}
			outFile := planOutput("-o", out, in)
			var st *report.Stats
			if stats != "" {
				var err error
				if st, err = report.ReadStats(stats); err != nil {
					return badInput(fmt.Errorf("--stats: %w", err))
				}
			}
			t, sys, err := e.loadTrace(cmd.Context(), in)
			if err != nil {
				return err
			}
			story, err := report.Build(cmd.Context(), in, sys, t)
			if err != nil {
				return replayFailure(cmd.Context(), err)
			}
			story.Program, story.Install = e.prog.Name, e.prog.Install
			var b bytes.Buffer
			if err := story.WriteHTML(&b, st); err != nil {
				return err
			}
			where, kept := outFile.write(b.Bytes())
			if where == "" {
				return kept
			}
			fmt.Fprintf(e.stdout, "wrote %s (%d bytes): %d actors, %d events\n", where, b.Len(), len(story.Actors), len(t.Events))
			return kept
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (default FILE with .html for .trace)")
	cmd.Flags().StringVar(&stats, "stats", "", "statistics written by demi minimize --stats, to show its stages and pace")
	return cmd
}
