package eval

import (
	"fmt"
	"strings"
)

// Targets of the fresh-seed study (issue 14).
const (
	TargetFreshMedian = 1.05
	TargetFreshWorst  = 1.25
)

// fresh renders the fresh-seed study.
func (m *md) fresh(rep *Report) {
	if len(rep.Fresh) == 0 {
		return
	}
	s := SummarizeFresh(rep.Fresh)
	m.p("## Fresh seeds: failing traces demi has never seen")
	m.p("")
	m.p("Measured %s, minimization budget %s per trace, `-j %d`. For every bug, the fuzz run of its shipped trace "+
		"(docs/examples.md) is repeated with the seeds after the shipped one, in order; the first %d runs that "+
		"fail after at least the shipped run's minimum of deliveries and break the same invariant as the shipped trace "+
		"(the fingerprint with member names replaced by `*`) are minimized, and nothing else is chosen. "+
		"Ratios are deliveries plus externals of the result over those of the best known size: the smaller of the "+
		"reference and the shipped `.min.trace`. A ratio below 1 is a result smaller than anything shipped.",
		rep.FreshGenerated, rep.FreshBudget, rep.FreshWorkers, freshN(rep.Fresh))
	m.p("")
	m.table([]string{"target", "demi here", "status"}, [][]string{
		{fmt.Sprintf("median result / best known ≤ %.2f", TargetFreshMedian), fmt.Sprintf("%.2f (%d runs)", s.Median, s.Runs), yesNo(s.Runs > 0 && s.Median <= TargetFreshMedian)},
		{fmt.Sprintf("worst result / best known ≤ %.2f", TargetFreshWorst), fmt.Sprintf("%.2f", s.Worst), yesNo(s.Runs > 0 && s.Worst <= TargetFreshWorst)},
		{"every run within its budget (" + rep.FreshBudget + ")", fmt.Sprintf("%d of %d", s.WithinBudget, s.Runs), yesNo(s.Runs > 0 && s.WithinBudget == s.Runs)},
	})
	var rows [][]string
	for i := range rep.Fresh {
		r := &rep.Fresh[i]
		if r.Err != "" && len(r.Runs) == 0 {
			rows = append(rows, []string{r.Bug, "error: " + r.Err, "", "", "", "", "", "", ""})
			continue
		}
		best, med, worst, _ := r.Spread()
		var seeds, sizes []string
		slowest, cpu := 0.0, 0.0
		for _, x := range r.Runs {
			seeds = append(seeds, fmt.Sprint(x.Seed))
			sizes = append(sizes, x.Result.String())
			slowest = max(slowest, x.Seconds)
			cpu = max(cpu, x.CPUSeconds)
		}
		opt := "–"
		if r.Optimum != nil {
			opt = r.Optimum.String()
		}
		rows = append(rows, []string{r.Bug, strings.Join(seeds, ", "), fmt.Sprintf("%s (%s)", r.Best, r.BestOf), opt,
			strings.Join(sizes, ", "), fmt.Sprintf("%.2f / %.2f / %.2f", best, med, worst), fmt.Sprintf("%.1f", slowest),
			fmt.Sprintf("%.1f", cpu), fmt.Sprint(r.SeedsTried)})
	}
	m.table([]string{"bug", "fresh seeds", "best known", "proven optimum", "results", "best / median / worst", "slowest (s)", "most CPU (s)", "seeds fuzzed"}, rows)
	m.p("<details><summary>Every fresh-seed run</summary>")
	m.p("")
	var all [][]string
	for i := range rep.Fresh {
		r := &rep.Fresh[i]
		for _, x := range r.Runs {
			over := "–"
			if x.OverOptimum > 0 {
				over = fmt.Sprintf("%.2f", x.OverOptimum)
			}
			all = append(all, []string{r.Bug, fmt.Sprint(x.Seed), "`" + x.Fingerprint + "`", x.Initial.String(), x.Result.String(),
				fmt.Sprintf("%.2f", x.Ratio), over, fmt.Sprintf("%.1f", x.Seconds), fmt.Sprintf("%.1f", x.CPUSeconds),
				fmt.Sprint(x.Schedules), fmt.Sprint(x.Steps)})
		}
	}
	m.table([]string{"bug", "seed", "violation", "input", "result", "ratio", "÷ optimum", "seconds", "CPU seconds", "schedules", "steps"}, all)
	m.p("The fuzz flags of each bug (the seed is the shipped one plus 1, then onwards):")
	m.p("")
	for i := range rep.Fresh {
		m.p("- %s (shipped seed %d): `demi fuzz %s`", rep.Fresh[i].Bug, rep.Fresh[i].ShippedSeed, rep.Fresh[i].FuzzArgs)
	}
	m.p("")
	m.p("</details>")
	m.p("")
}

func freshN(rows []FreshRow) int {
	n := 0
	for _, r := range rows {
		n = max(n, len(r.Runs))
	}
	return n
}
