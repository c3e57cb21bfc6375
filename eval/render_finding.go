package eval

import (
	"fmt"
	"strings"
)

// finding renders the time-to-bug study.
func (m *md) finding(rep *Report) {
	f := rep.Finding
	if f == nil || len(f.Rows) == 0 {
		return
	}
	var modes []string
	for _, r := range f.Rows {
		if !contains(modes, r.Mode) {
			modes = append(modes, r.Mode)
		}
	}
	m.p("## Finding bugs: time to the first violation, by fuzz mode")
	m.p("")
	load := ""
	if f.Load != "" {
		load = fmt.Sprintf(", load average %s on the shared machine", f.Load)
	}
	m.p("Measured %s in %.0f s (%d trials at a time%s) by `go run ./cmd/demi-eval --studies finding` "+
		"(the runs are `record.Search`, the code behind `demi fuzz --mode M`, with every other flag at its default). "+
		"For every bug and mode, %d trials: trial t searches from seed %d + t×%d, so the trials use fixed, disjoint seed "+
		"ranges, and stops at the first violation or at the cap, %d runs or %s, whichever comes first. A cell gives the "+
		"median runs to the first violation with the quartiles in brackets, how many trials found it, and the median "+
		"seconds; a trial that hit the cap counts as slower than any that found the bug, so a median or quartile "+
		"written `>cap` is a trial that found nothing. Runs of different modes cost different time (a coverage run "+
		"also hashes the actors' abstract states at every event, a rounds run is shorter), hence the seconds. "+
		"`rounds` applies only to systems whose messages carry a round (`record.Rounded`).",
		f.Generated, f.Seconds, f.Workers, load, f.Trials, max(f.From, 1), f.CapRuns, f.CapRuns, f.CapTime)
	m.p("")
	for _, hard := range []bool{false, true} {
		var rows [][]string
		for _, c := range f.Cases {
			if c.Hard != hard {
				continue
			}
			row := []string{c.Name}
			for _, mode := range modes {
				row = append(row, findingCell(f.Row(c.Name, mode), f.CapRuns))
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			continue
		}
		if hard {
			m.p("### The hard-bug set")
			m.p("")
			m.p("Bugs that the random walk with default flags (`--mode walk`) found in fewer than 1 of 1,000 runs when " +
				"they were chosen, before any mode was measured on them: of the candidates, those it found in none of " +
				"seeds 1–1000 (`hardCases` in cmd/demi-eval/finding.go lists every candidate's rate). They are variants of the example systems (bug switches kept in the systems' code, " +
				"`raft.HardBugNames`, or options such as more members).")
			m.p("")
		} else {
			m.p("### The example bugs")
			m.p("")
		}
		m.table(append([]string{"bug"}, modes...), rows)
	}
	if len(f.Curves) > 0 {
		m.p("### Abstract states covered")
		m.p("")
		m.p("The abstract states (`record.Abstraction`: the system's `System.Abstract` where it has one, as Raft's " +
			"multiset of each member's role, term and log relative to the others', vote and leader set-up; otherwise " +
			"the members' `Snapshot()` fields, numbers and lengths as counters relative to the members' largest; " +
			"docs/fuzz-modes.md) that all runs so far reached, after every run from seed 1, replaying each run's " +
			"events; no bug is switched on.")
		m.p("")
		var names []string
		for _, c := range f.Curves {
			if !contains(names, c.Case) {
				names = append(names, c.Case)
			}
		}
		for _, name := range names {
			var rows [][]string
			for _, c := range f.Curves {
				if c.Case != name || len(c.States) == 0 {
					continue
				}
				at := func(n int) string {
					if n > len(c.States) {
						return "–"
					}
					return fmt.Sprint(c.States[n-1])
				}
				n := len(c.States)
				rows = append(rows, []string{c.Mode, at(1), at(n / 4), at(n / 2), at(n), fmt.Sprintf("%.1f", c.Second)})
			}
			m.p("%s:", name)
			m.p("")
			n := 0
			for _, c := range f.Curves {
				if c.Case == name {
					n = len(c.States)
				}
			}
			m.table([]string{"mode", "after 1 run", fmt.Sprintf("after %d", n/4), fmt.Sprintf("after %d", n/2), fmt.Sprintf("after %d", n), "seconds"}, rows)
			if link := f.Plots[name]; link != "" {
				m.p("![abstract states covered, %s](%s)", name, link)
				m.p("")
			}
		}
	}
}

// findingCell renders one case and mode.
func findingCell(r *FindingRow, capRuns int) string {
	if r == nil {
		return "–"
	}
	if r.Skip != "" {
		return "n/a (" + r.Skip + ")"
	}
	runs := func(n int, ok bool) string {
		if !ok {
			return "&gt;cap"
		}
		return fmt.Sprint(n)
	}
	med, ok := r.MedianRuns()
	q1, ok1, q3, ok3 := r.RunsQuartiles()
	sec, okS := r.MedianSeconds()
	s := fmt.Sprintf("%s [%s–%s], %d/%d", runs(med, ok), runs(q1, ok1), runs(q3, ok3), r.Found(), len(r.Trials))
	if okS {
		s += fmt.Sprintf(", %.2f s", sec)
	}
	return strings.TrimSpace(s)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
