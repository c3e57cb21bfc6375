package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/demi-project/demi/minimize"
)

// TargetAfterLast is issue 26's bound on the median share of a
// minimization's steps that come after its last improvement.
const TargetAfterLast = 0.30

// AfterLast is the share of a run's steps (total) that came after the last
// pace point at which the best trace's size changed: the work a user waited
// for after the result was final.
func AfterLast(pace []minimize.PacePoint, total int64) float64 {
	if total <= 0 {
		return 0
	}
	var last int64
	for i, p := range pace {
		if i == 0 || p.Deliveries != pace[i-1].Deliveries || p.Externals != pace[i-1].Externals {
			last = p.Steps
		}
	}
	return float64(total-last) / float64(total)
}

// PassEvidence is one pass summed up over many minimizations.
type PassEvidence struct {
	Name, Tier string
	// Runs counts the runs that called the pass, Paid those in which a
	// call made the best trace smaller, ForkPaid those in which a call in
	// one of the beam's forks made the fork's trace smaller (its steps are
	// the beam's).
	Runs, Paid, ForkPaid int
	Calls, Removed       int
	Steps                int64
}

// SumPasses sums per-pass statistics over runs, in the pass table's order;
// it also returns the steps of all runs together.
func SumPasses(runs [][]minimize.PassStats) ([]PassEvidence, int64) {
	by := map[string]*PassEvidence{}
	var all int64
	for _, r := range runs {
		for _, p := range r {
			e := by[p.Name]
			if e == nil {
				e = &PassEvidence{Name: p.Name, Tier: p.Tier}
				by[p.Name] = e
			}
			if p.Calls > 0 {
				e.Runs++
			}
			if p.Successes > 0 {
				e.Paid++
			}
			if p.Fork.Successes > 0 {
				e.ForkPaid++
			}
			e.Calls += p.Calls
			e.Removed += p.Removed
			e.Steps += p.Steps
			all += p.Steps
		}
	}
	var out []PassEvidence
	for _, info := range minimize.Passes() {
		if e := by[info.Name]; e != nil {
			out = append(out, *e)
			delete(by, info.Name)
		}
	}
	// Passes no longer in the table (a report read back from older JSON)
	// come last, by name.
	rest := make([]string, 0, len(by))
	for name := range by {
		rest = append(rest, name)
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, *by[name])
	}
	return out, all
}

// passes renders the evidence for every pass: what each costs and where it
// makes traces smaller, over the shipped traces' runs (Table 2) and the
// fresh-seed study's, and the share of steps after the last improvement.
func (m *md) passes(rep *Report) {
	var shipped, fresh [][]minimize.PassStats
	var shippedAfter, freshAfter []float64
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if len(r.Passes) == 0 {
			continue
		}
		shipped = append(shipped, r.Passes)
		var steps int64
		for _, s := range r.Stages {
			steps += s.Steps
		}
		shippedAfter = append(shippedAfter, AfterLast(r.Pace, steps))
	}
	for i := range rep.Fresh {
		for _, x := range rep.Fresh[i].Runs {
			if len(x.Passes) == 0 {
				continue
			}
			fresh = append(fresh, x.Passes)
			freshAfter = append(freshAfter, x.AfterLast)
		}
	}
	if len(shipped)+len(fresh) == 0 {
		return
	}
	m.p("## Passes: what each costs and where it pays")
	m.p("")
	m.p("Every pass of `minimize`'s pass table that the runs above called, summed over the %d shipped traces' runs (Table 2) "+
		"and the %d runs of the fresh-seed study: the runs that called it, its calls, its steps and their share of all steps, "+
		"the runs in which a call made the best trace smaller, the deliveries plus externals its calls removed, "+
		"and the runs in which one of its calls in the beam's forks made the fork's trace smaller (those calls' steps are the beam's) "+
		"(`demi minimize --stats` gives the same per run). A pass that pays in no run here may still pay elsewhere: "+
		"docs/minimization.md names an input for each.", len(shipped), len(fresh))
	m.p("")
	ev, all := SumPasses(append(slices.Clone(shipped), fresh...))
	rows := make([][]string, 0, len(ev))
	for _, e := range ev {
		rows = append(rows, []string{e.Name, e.Tier, fmt.Sprint(e.Runs), fmt.Sprint(e.Calls),
			fmt.Sprintf("%.1f M (%.1f%%)", float64(e.Steps)/1e6, 100*float64(e.Steps)/float64(max(all, 1))),
			fmt.Sprint(e.Paid), fmt.Sprint(e.Removed), fmt.Sprint(e.ForkPaid)})
	}
	m.table([]string{"pass", "tier", "runs", "calls", "steps", "runs it paid in", "removed", "runs it paid in a fork"}, rows)
	var parts []string
	for _, set := range []struct {
		name  string
		after []float64
	}{{"shipped traces", shippedAfter}, {"fresh seeds", freshAfter}} {
		if len(set.after) == 0 {
			continue
		}
		med := median(set.after)
		parts = append(parts, fmt.Sprintf("%s %.2f over %d runs (worst %.2f; %s)", set.name, med, len(set.after), slices.Max(set.after),
			yesNo(med <= TargetAfterLast)))
	}
	m.p("Share of a run's steps after its last improvement (the pace's last change of size), median against the target ≤ %.2f: %s.",
		TargetAfterLast, strings.Join(parts, "; "))
	m.p("")
}
