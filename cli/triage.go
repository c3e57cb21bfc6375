package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
	"github.com/spf13/cobra"
)

// DefaultTriageBudget is the wall-clock budget of each group's
// minimization.
const DefaultTriageBudget = time.Minute

// triaged is one failing trace of a campaign, as triage groups it: its
// header only (a campaign may hold millions of traces).
type triaged struct {
	path   string
	system *record.System
	header record.Header
}

// size orders the traces of a group: fewest events first, then the
// lowest seed, then the name.
func (a triaged) compare(b triaged) int {
	return cmp.Or(cmp.Compare(a.header.EventCount, b.header.EventCount),
		cmp.Compare(a.header.Seed, b.header.Seed), cmp.Compare(filepath.Base(a.path), filepath.Base(b.path)))
}

// triageGroup is the traces of one bug: the same system, bug switches and
// violation fingerprint once member names are abstracted.
type triageGroup struct {
	system, bugs, violation string
	traces                  []triaged // shortest first
	firstSeed               uint64
}

func triageCmd(e *env) *cobra.Command {
	var (
		out     string
		workers int
		budget  time.Duration
		noMin   bool
	)
	cmd := &cobra.Command{
		Use:   "triage DIR... [-o OUT] [-j N] [--budget D] [--no-minimize]",
		Short: "Group the failing traces of a fuzz campaign by bug and minimize one of each",
		Long: `triage reads every .trace file in the directories given (a file may be named
too; .min.trace files are skipped), and groups the failing traces by bug:
the same system, the same bug switches and the same violation fingerprint
once member names are abstracted (ElectionSafety(raft-1,raft-3) and
ElectionSafety(raft-2,raft-4) are one group, ElectionSafety(#1,#2)). It
keeps the shortest trace of each group (fewest events, then lowest seed),
minimizes it (-j cores, --budget each), and writes to OUT (default triage,
which must not exist or be empty):

  OUT/summary.md       the table printed: group, system, violation, count,
                       first seed, shortest trace, minimized size
  OUT/groupN.min.trace the minimized trace of group N
  OUT/groupN.md        its bug report (what demi show --format markdown
                       prints)

The groups are numbered by size (largest first), then by first seed, so
the same traces give the same table, however a campaign was split over
machines (docs/campaigns.md). Exit status 0 when every file was read, 1
when no file held a violation, 2 on bad input (an unreadable trace is
named, and nothing is written).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if workers < 0 {
				return badInput(errors.New("-j must be at least 1"))
			}
			if budget <= 0 {
				return badInput(fmt.Errorf("--budget %s: want a positive duration", budget))
			}
			if workers == 0 {
				workers = runtime.NumCPU()
			}
			if err := checkTriageOut(out); err != nil {
				return err
			}
			paths, err := triagePaths(args)
			if err != nil {
				return err
			}
			groups, clean, err := e.triageGroups(cmd.Context(), paths)
			if err != nil {
				return err
			}
			if len(groups) == 0 {
				return notFound(fmt.Errorf("no failing trace among %d file(s)", len(paths)))
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return badInput(fmt.Errorf("-o %s: %v", out, unwrapPath(err)))
			}
			minimized := make([]string, len(groups))
			for i, g := range groups {
				minimized[i] = "not minimized"
				if noMin {
					continue
				}
				size, err := e.triageMinimize(cmd.Context(), g, i+1, out, workers, budget)
				if err != nil {
					if cmd.Context().Err() != nil {
						return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted while minimizing group %d: the groups before it are in %s", i+1, out)}
					}
					size = "failed: " + err.Error()
				}
				minimized[i] = size
			}
			var table bytes.Buffer
			tb := newTable(&table, "group", "system", "violation", "count", "first seed", "shortest", "minimized")
			for i, g := range groups {
				sys := g.system
				if g.bugs != "" {
					sys += " (" + g.bugs + ")"
				}
				short := g.traces[0]
				if err := tb.Append(strconv.Itoa(i+1), record.Escape(sys), record.Escape(g.violation), strconv.Itoa(len(g.traces)),
					strconv.FormatUint(g.firstSeed, 10), record.Escape(filepath.Base(short.path))+" "+sizeText(short.header), minimized[i]); err != nil {
					return err
				}
			}
			if err := tb.Render(); err != nil {
				return err
			}
			summary := fmt.Sprintf("%d failing trace(s) in %d group(s)", len(paths)-clean, len(groups))
			if clean > 0 {
				summary += fmt.Sprintf("; %d trace(s) without a violation left out", clean)
			}
			md := "# Triage\n\n" + summary + ".\n\n```\n" + table.String() + "```\n"
			if err := record.WriteFileAtomic(filepath.Join(out, "summary.md"), []byte(md)); err != nil {
				return fmt.Errorf("write summary: %w", err)
			}
			what := "the summary"
			if !noMin {
				what += ", the minimized traces and their reports"
			}
			fmt.Fprintf(e.stdout, "%s%s\nwrote %s to %s\n", table.String(), summary, what, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "triage", "directory to write the summary, minimized traces and reports to (must not exist or be empty)")
	f.IntVarP(&workers, "jobs", "j", 0, "cores each minimization uses (default: all)")
	f.DurationVar(&budget, "budget", DefaultTriageBudget, "wall-clock budget of each group's minimization")
	f.BoolVar(&noMin, "no-minimize", false, "only group: no minimization, no reports")
	return cmd
}

// checkTriageOut checks, before any work, that out can be created or is
// an empty directory: triage never mixes its output with other files.
func checkTriageOut(out string) error {
	if out == "" {
		return badInput(errors.New("-o: empty path"))
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkOutput("-o", out, true)
	case err != nil:
		return badInput(fmt.Errorf("-o %s: %v", out, unwrapPath(err)))
	case len(entries) > 0:
		return badInput(fmt.Errorf("-o %s: not empty; triage writes only to a new or empty directory", out))
	}
	return checkOutput("-o", filepath.Join(out, "summary.md"), true)
}

// triagePaths lists the trace files of args, sorted: each directory's
// .trace files (not .min.trace) and each file named.
func triagePaths(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: %v", a, unwrapPath(err)))
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s: %v", a, unwrapPath(err)))
		}
		for _, en := range entries {
			n := en.Name()
			if en.Type().IsRegular() && strings.HasSuffix(n, ".trace") && !strings.HasSuffix(n, ".min.trace") {
				paths = append(paths, filepath.Join(a, n))
			}
		}
	}
	if len(paths) == 0 {
		return nil, badInput(fmt.Errorf("no .trace file in %s", strings.Join(args, " ")))
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// triageGroups reads the headers of paths and groups the failing traces;
// clean counts the traces without a violation.
func (e *env) triageGroups(ctx context.Context, paths []string) ([]*triageGroup, int, error) {
	byKey := map[string]*triageGroup{}
	clean := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, 0, &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted while reading %s", p)}
		}
		tr, err := e.readHeader(p)
		if err != nil {
			return nil, 0, err
		}
		v := tr.header.Violation
		if v == nil {
			clean++
			continue
		}
		opts := tr.header.OptionMap()
		var bugs []string
		for _, b := range tr.system.Bugs() {
			if opts.Bool(b) {
				bugs = append(bugs, b)
			}
		}
		g := &triageGroup{system: tr.system.Name, bugs: strings.Join(bugs, ", "),
			violation: abstractMembers(v.Fingerprint, tr.system.Members(opts))}
		key := g.system + "\x00" + g.bugs + "\x00" + g.violation
		if have, ok := byKey[key]; ok {
			g = have
		} else {
			byKey[key] = g
		}
		g.traces = append(g.traces, tr)
	}
	groups := make([]*triageGroup, 0, len(byKey))
	for _, g := range byKey {
		slices.SortFunc(g.traces, triaged.compare)
		g.firstSeed = g.traces[0].header.Seed
		for _, t := range g.traces {
			g.firstSeed = min(g.firstSeed, t.header.Seed)
		}
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *triageGroup) int {
		return cmp.Or(-cmp.Compare(len(a.traces), len(b.traces)), cmp.Compare(a.firstSeed, b.firstSeed),
			cmp.Compare(a.system, b.system), cmp.Compare(a.bugs, b.bugs), cmp.Compare(a.violation, b.violation))
	})
	return groups, clean, nil
}

// readHeader reads and checks the header of the trace at path.
func (e *env) readHeader(path string) (triaged, error) {
	f, err := os.Open(path)
	if err != nil {
		return triaged{}, badInput(fmt.Errorf("%s: %v", path, unwrapPath(err)))
	}
	defer f.Close()
	rd, err := record.NewReader(f, e.cat)
	if err != nil {
		return triaged{}, badInput(fmt.Errorf("%s: %w", path, err))
	}
	return triaged{path: path, system: rd.System(), header: rd.Header()}, nil
}

// abstractMembers replaces the members a fingerprint names by #1, #2, ...
// in the order it names them, so that the same bug between other members
// has the same text.
func abstractMembers(fp string, members []record.ActorID) string {
	for i, id := range record.NamedActors(fp, members) {
		fp = replaceWord(fp, string(id), "#"+strconv.Itoa(i+1))
	}
	return fp
}

// replaceWord replaces every whole-word occurrence of name in text (not
// inside a longer name: "raft-1" is not in "raft-12").
func replaceWord(text, name, with string) string {
	inWord := func(c byte) bool {
		return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	var b strings.Builder
	for {
		i := strings.Index(text, name)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := i + len(name)
		if (i == 0 || !inWord(text[i-1])) && (j >= len(text) || !inWord(text[j])) {
			b.WriteString(text[:i])
			b.WriteString(with)
		} else {
			b.WriteString(text[:j])
		}
		text = text[j:]
	}
}

// triageMinimize minimizes the shortest trace of group n and writes its
// minimized trace and report to out; it returns the minimized size.
func (e *env) triageMinimize(ctx context.Context, g *triageGroup, n int, out string, workers int, budget time.Duration) (string, error) {
	in := g.traces[0].path
	t, sys, err := e.loadTrace(ctx, in)
	if err != nil {
		return "", err
	}
	res, err := minimize.Run(ctx, sys, t, minimize.Config{Budget: budget, Workers: workers})
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("group%d", n)
	minPath := filepath.Join(out, name+".min.trace")
	if err := res.Trace.WriteFile(minPath); err != nil {
		return "", err
	}
	story, err := report.Build(ctx, name+".min.trace", sys, res.Trace)
	if err != nil {
		return "", err
	}
	story.Program, story.Install = e.prog.Name, e.prog.Install
	var md bytes.Buffer
	if err := story.WriteMarkdown(&md); err != nil {
		return "", err
	}
	if err := record.WriteFileAtomic(filepath.Join(out, name+".md"), md.Bytes()); err != nil {
		return "", err
	}
	return sizeText(res.Trace.Header), nil
}

// sizeText is a trace's size as the pages write it: "13 (E:8)".
func sizeText(h record.Header) string {
	return fmt.Sprintf("%d (E:%d)", h.Deliveries, h.Externals)
}
