package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/demi-project/demi/eval"
	"github.com/spf13/cobra"
)

func evalCmd(e *env) *cobra.Command {
	var (
		budget, peerBudget, optBudget, scaleBudget time.Duration
		bugs, out, jsonOut, traces, img, notes     string
		fromJSON                                   string
		scaleBug, scaleLengths                     string
		workers, replays                           int
		noPeer, noOptimal, noNoDiverge, noScaling  bool
	)
	cmd := &cobra.Command{
		Use:   "eval [--budget 2m] [--bugs raft-45,raft-46] [-o docs/evaluation.md] [--json docs/evaluation.json]",
		Short: "Reproduce the DEMi paper's evaluation on the example bugs, beside the paper and a peer",
		Long: `eval minimizes every example bug from its shipped failing trace
(TRACES/<bug>.trace) and writes the evaluation document: the DEMi paper's
Table 1 columns (Initial, Provenance, STSSched, TFB, Reference from
TRACES/<bug>.reference.trace, NoDiverge), Table 2 (runtime and schedules per
stage), the paper's own rows beside them, an exhaustive search for the optimum
below the smallest known reproducer of each bug (as demi optimal), pace plots (the paper's Figure 2)
as PNG files, the same bugs searched and shrunk by pgregory.net/rapid, and a
scaling study (trace length, -j 1 against -j 2). The JSON file holds every
number. Both files are rewritten after every bug, so an interrupted run
leaves the results so far. --from-json FILE renders the document again from
a JSON results file (for instance after editing the notes) without measuring.

The text of --notes (default docs/evaluation-notes.md, when it exists) is
appended as the Analysis section. A full run takes about
bugs x (2 x budget + 2 x peer budget + optimal budget), at most about 45 minutes for the seven raft bugs, plus the scaling study.

Exit status 0 when every bug was evaluated, 1 when some could not be, 2 on
bad input, 130 when interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if budget <= 0 || scaleBudget <= 0 {
				return badInput(errors.New("--budget and --scaling-budget must be positive"))
			}
			if workers < 0 || replays < 0 {
				return badInput(errors.New("-j and --replays must be at least 1"))
			}
			var noteText string
			if notes != "" {
				b, err := os.ReadFile(notes)
				switch {
				case err == nil:
					noteText = string(b)
				case !errors.Is(err, os.ErrNotExist) || cmd.Flags().Changed("notes"):
					return badInput(err)
				}
			}
			if fromJSON != "" {
				if out == "" {
					return badInput(errors.New("--from-json needs -o"))
				}
				rep, err := eval.ReadJSON(fromJSON)
				if err != nil {
					return badInput(err)
				}
				rep.Notes = noteText
				if err := eval.WriteMarkdown(out, rep); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "wrote %s from %s\n", out, fromJSON)
				return nil
			}
			var bugList []string
			for _, b := range strings.Split(bugs, ",") {
				if b = strings.TrimSpace(b); b != "" {
					bugList = append(bugList, b)
				}
			}
			lengths, err := parseInts(scaleLengths)
			if err != nil {
				return badInput(fmt.Errorf("--scaling-lengths: %w", err))
			}
			if st, err := os.Stat(traces); err != nil || !st.IsDir() {
				return badInput(fmt.Errorf("--traces %s is not a directory", traces))
			}
			for _, p := range []string{out, jsonOut} {
				if p == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
			}
			cfg := eval.Config{Catalog: e.cat, TraceDir: traces, Bugs: bugList, Budget: budget, Workers: workers,
				PeerBudget: peerBudget, OptimalBudget: optBudget, NoDiverge: !noNoDiverge, Replays: replays,
				Log: func(f string, a ...any) {
					fmt.Fprintf(e.stderr, "%s eval: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(f, a...))
				}}
			if noPeer {
				cfg.PeerBudget = -1
			}
			if noOptimal {
				cfg.OptimalBudget = -1
			}
			if img != "" && out != "" {
				if err := os.MkdirAll(img, 0o755); err != nil {
					return err
				}
				link, err := filepath.Rel(filepath.Dir(out), img)
				if err != nil {
					return badInput(err)
				}
				cfg.ImgDir, cfg.ImgLink = img, link
			}
			if !noScaling {
				cfg.Scaling = &eval.ScalingConfig{Bug: scaleBug, Lengths: lengths, Budget: scaleBudget}
			}
			cfg.OnUpdate = func(r *eval.Report) error {
				r.Notes = noteText
				if out != "" {
					if err := eval.WriteMarkdown(out, r); err != nil {
						return err
					}
				}
				if jsonOut != "" {
					if err := eval.WriteJSON(jsonOut, r); err != nil {
						return err
					}
				}
				return nil
			}
			rep, err := eval.Run(cmd.Context(), cfg)
			if rep != nil {
				printEvalSummary(e, rep)
			}
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted: the results so far are written")}
				}
				return badInput(err)
			}
			if out != "" {
				fmt.Fprintf(e.stdout, "wrote %s\n", out)
			}
			if jsonOut != "" {
				fmt.Fprintf(e.stdout, "wrote %s\n", jsonOut)
			}
			for _, r := range rep.Rows {
				if r.Err != "" {
					return notFound(fmt.Errorf("%s could not be evaluated: %s", r.Bug, r.Err))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&budget, "budget", 2*time.Minute, "time budget of each minimization")
	f.StringVar(&bugs, "bugs", "", "comma-separated bugs to evaluate (default: every TRACES/<bug>.trace)")
	f.StringVarP(&out, "output", "o", "docs/evaluation.md", "the markdown document to write (empty: none)")
	f.StringVar(&jsonOut, "json", "docs/evaluation.json", "the JSON results to write (empty: none)")
	f.StringVar(&traces, "traces", "examples/traces", "directory of <bug>.trace and <bug>.reference.trace")
	f.StringVar(&img, "img", "docs/img", "directory for the PNG plots (empty: no plots)")
	f.StringVar(&fromJSON, "from-json", "", "render -o again from a JSON results file (and --notes) without measuring")
	f.StringVar(&notes, "notes", "docs/evaluation-notes.md", "markdown appended as the Analysis section, if the file exists")
	f.IntVarP(&workers, "jobs", "j", 0, "minimize's -j (default: all cores)")
	f.IntVar(&replays, "replays", 3, "exact replays of each minimized trace")
	f.DurationVar(&peerBudget, "peer-budget", time.Minute, "rapid's search budget, and separately its shrink budget")
	f.DurationVar(&optBudget, "optimal-budget", time.Minute, "budget of the exhaustive search below each bug's smallest known reproducer")
	f.BoolVar(&noPeer, "no-peer", false, "skip the rapid peer")
	f.BoolVar(&noOptimal, "no-optimal", false, "skip the exhaustive search")
	f.BoolVar(&noNoDiverge, "no-nodiverge", false, "skip the NoDiverge runs")
	f.BoolVar(&noScaling, "no-scaling", false, "skip the scaling study")
	f.StringVar(&scaleBug, "scaling-bug", "raft-56", "bug of the scaling study (when its trace is missing: the first bug)")
	f.StringVar(&scaleLengths, "scaling-lengths", "500,1000,2000,4000", "trace lengths (deliveries) of the scaling study")
	f.DurationVar(&scaleBudget, "scaling-budget", time.Minute, "budget of each scaling minimization")
	return cmd
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", p)
		}
		out = append(out, n)
	}
	return out, nil
}

func printEvalSummary(e *env, rep *eval.Report) {
	tab := newTable(e.stdout, "bug", "initial", "STSSched", "TFB", "reference", "TFB/ref", "seconds", "rapid")
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Err != "" {
			_ = tab.Append(r.Bug, "error: "+r.Err, "", "", "", "", "", "")
			continue
		}
		ref, ratio := "–", "–"
		if r.Reference != nil {
			ref = r.Reference.String()
		}
		if x, ok := r.TFBOverReference(); ok {
			ratio = fmt.Sprintf("%.2f", x)
		}
		peer := "–"
		if r.Peer != nil {
			peer = "not found"
			if r.Peer.Found {
				peer = fmt.Sprintf("%d (E:%d)", r.Peer.Deliveries, r.Peer.Externals)
			}
		}
		_ = tab.Append(r.Bug, r.Initial.String(), r.STSSched.String(), r.TFB.String(), ref, ratio,
			fmt.Sprintf("%.1f", r.TotalSeconds()), peer)
	}
	_ = tab.Render()
}
