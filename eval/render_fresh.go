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
	fresh := rep.FreshWithOptima()
	s := SummarizeFresh(fresh)
	m.p("## Fresh seeds: failing traces demi has never seen")
	m.p("")
	steps := "the default step budget of `demi minimize`"
	if rep.FreshSteps > 0 {
		steps = fmt.Sprintf("a step budget of %d steps (`demi minimize --steps`)", rep.FreshSteps)
	}
	load := ""
	if rep.FreshLoad != "" {
		load = fmt.Sprintf(" (load average %s on the machine)", rep.FreshLoad)
	}
	m.p("Measured %s%s, %s per trace, a wall-clock cap of %s, `-j %d`. The sizes depend on the steps alone, "+
		"not on the machine's load or on `-j`, as long as no run reaches the wall-clock cap. "+
		"For every bug, the fuzz run of its shipped trace "+
		"(docs/examples.md) is repeated with %s, in order; the first %d runs that "+
		"fail after at least the shipped run's minimum of deliveries and break the same invariant as the shipped trace "+
		"(the fingerprint with member names replaced by `*`) are minimized, and nothing else is chosen. "+
		"Ratios are deliveries plus externals of the result over those of the best known size: the smaller of the "+
		"reference and the shipped `.min.trace`. A ratio below 1 is a result smaller than anything shipped. "+
		"Where the optimum study (above) proved an optimum for the shipped trace, it may be below the best known size: the "+
		"÷ smallest known column and the targets' second rows compare with the smallest known size, that optimum where "+
		"there is one and else the best known. Neither is an optimum for the fresh input: the optimum study proves it over "+
		"the shipped trace's external events and their subsequences, and a fresh input has external events of its own "+
		"(other client commands, in another order), so both are the best known reproducer of the bug, not a proof about the input. "+
		"Seconds are wall-clock time on this shared machine, %s; CPU seconds are what the run used over all its workers, "+
		"so CPU seconds / %d is about its wall time on %d idle cores.",
		rep.FreshGenerated, load, steps, rep.FreshBudget, rep.FreshWorkers, freshSeeds(rep), freshN(rep.Fresh), gcSetting(rep.FreshGOGC), max(rep.FreshWorkers, 1), max(rep.FreshWorkers, 1))
	m.p("")
	idle := 0
	for i := range rep.Fresh {
		for _, x := range rep.Fresh[i].Runs {
			if x.CPUSeconds > 0 && x.CPUSeconds/float64(max(rep.FreshWorkers, 1)) <= 60 {
				idle++
			}
		}
	}
	m.table([]string{"target", "demi here", "status"}, [][]string{
		{fmt.Sprintf("median result / best known ≤ %.2f", TargetFreshMedian), fmt.Sprintf("%.2f (%d runs)", s.Median, s.Runs), yesNo(s.Runs > 0 && s.Median <= TargetFreshMedian)},
		{fmt.Sprintf("worst result / best known ≤ %.2f", TargetFreshWorst), fmt.Sprintf("%.2f", s.Worst), yesNo(s.Runs > 0 && s.Worst <= TargetFreshWorst)},
		{fmt.Sprintf("median result / smallest known (the shipped trace's optimum where proven) ≤ %.2f", TargetFreshMedian), fmt.Sprintf("%.2f", s.MedianSmallest), yesNo(s.Runs > 0 && s.MedianSmallest <= TargetFreshMedian)},
		{fmt.Sprintf("worst result / smallest known (the shipped trace's optimum where proven) ≤ %.2f", TargetFreshWorst), fmt.Sprintf("%.2f", s.WorstSmallest), yesNo(s.Runs > 0 && s.WorstSmallest <= TargetFreshWorst)},
		{fmt.Sprintf("every run within 60 s on %d idle cores (CPU seconds / %d ≤ 60)", max(rep.FreshWorkers, 1), max(rep.FreshWorkers, 1)),
			fmt.Sprintf("%d of %d", idle, s.Runs), yesNo(s.Runs > 0 && idle == s.Runs)},
		{"no run reached the wall-clock cap (" + rep.FreshBudget + ")", fmt.Sprintf("%d of %d", s.WithinBudget, s.Runs), yesNo(s.Runs > 0 && s.WithinBudget == s.Runs)},
	})
	m.p("%d of the %d results are proved optimal over their own external events: the run's optimum pass searched every "+
		"subsequence of them, in every schedule, and none reproduces the violation with fewer deliveries plus externals "+
		"(`minimize.Result.Optimal`; the column \"proved optimal\" below). The others are not known to be above it: "+
		"their search was cut short or did not run.", s.Proved, s.Runs)
	m.p("")
	var rows [][]string
	for i := range fresh {
		r := &fresh[i]
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
	m.table([]string{"bug", "fresh seeds", "best known", "shipped trace's optimum (over its externals)", "results", "best / median / worst", "slowest (s)", "most CPU (s)", "seeds fuzzed"}, rows)
	m.p("<details><summary>Every fresh-seed run</summary>")
	m.p("")
	var all [][]string
	for i := range fresh {
		r := &fresh[i]
		for _, x := range r.Runs {
			over := "–"
			if x.OverOptimum > 0 {
				over = fmt.Sprintf("%.2f", x.OverOptimum)
			}
			all = append(all, []string{r.Bug, fmt.Sprint(x.Seed), "`" + x.Fingerprint + "`", x.Initial.String(), x.Result.String(),
				fmt.Sprintf("%.2f", x.Ratio), over, yesDash(x.Proved), fmt.Sprintf("%.1f", x.Seconds), fmt.Sprintf("%.1f", x.CPUSeconds),
				fmt.Sprint(x.Schedules), fmt.Sprint(x.Steps)})
		}
	}
	m.table([]string{"bug", "seed", "violation", "input", "result", "ratio", "÷ smallest known", "proved optimal", "seconds", "CPU seconds", "schedules", "steps"}, all)
	m.p("The fuzz flags of each bug (the seeds are %s):", freshSeeds(rep))
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

// freshSeeds says where the study's seeds start.
func freshSeeds(rep *Report) string {
	if rep.FreshFrom != 0 {
		return fmt.Sprintf("the seeds from %d on (a range chosen before any run, with `demi-eval --fresh-from %d`)", rep.FreshFrom, rep.FreshFrom)
	}
	return "the seeds after the shipped one"
}
