package eval

import (
	"fmt"
	"time"

	"github.com/demi-project/demi/internal/collector"
)

// Targets of the long-trace study (issue 9).
const (
	TargetLongRatio   = 1.25 // result / what demi reaches from the shipped trace
	TargetLongPeakMiB = 1024 // peak memory
	TargetLongOver    = 10   // seconds past the budget
	TargetLongCancel  = 1    // seconds from cancellation to return
)

// long renders the long-trace study.
func (m *md) long(rep *Report) {
	if len(rep.Long) == 0 {
		return
	}
	n := longN(rep.Long)
	m.p("## Long traces: failing runs of a long fuzz campaign")
	m.p("")
	m.p("Measured %s, minimization budget %s per trace, `-j %d`. For every bug, `demi fuzz` with the long flags "+
		"below (the shipped run's options, about 1.5× the target length in steps, 2 external events per 100 "+
		"deliveries, the target length as minimum, and fewer client commands for the bugs that break their "+
		"invariant early) searches seeds from 1; the first %s that break%s the shipped "+
		"trace's invariant after at least the target length %s minimized, and nothing else is chosen (seeds fuzzed: "+
		"since the bug's previous row). The ratio is "+
		"deliveries plus externals of the result over those of the bug's shipped `.min.trace` (what demi reaches "+
		"from the shipped trace). Seconds are minimize.Run's wall time once the trace is in memory; peak memory is "+
		"what the Go runtime held from the OS meanwhile (runtime/metrics, sampled every 20 ms, under demi "+
		"minimize's GOGC=%d and soft memory limit), input trace included, close to the process's peak RSS. Each result is replayed "+
		"exactly.", rep.LongGenerated, rep.LongBudget, rep.LongWorkers, runsWord(n), verbS(n), isAre(n), collector.Long)
	m.p("")
	var rows [][]string
	var ratios []float64
	worst, peak, longest, latency := 0.0, 0.0, 0.0, 0.0
	replayedAll, cancels := true, 0
	for i := range rep.Long {
		r := &rep.Long[i]
		if r.Err != "" && r.Input.Deliveries == 0 {
			rows = append(rows, []string{r.Bug, "–", fmt.Sprintf("%d (%.0f s)", r.SeedsTried, r.FuzzSeconds), "error: " + r.Err, "", "", "", "", "", "", "", ""})
			continue
		}
		if r.Err != "" {
			rows = append(rows, []string{r.Bug, fmt.Sprint(r.Seed), fmt.Sprintf("%d (%.0f s)", r.SeedsTried, r.FuzzSeconds), "error: " + r.Err, r.Input.String(), "", "", "", "", "", "", ""})
			continue
		}
		ratios = append(ratios, r.Ratio)
		worst, peak = max(worst, r.Ratio), max(peak, r.PeakMiB)
		longest = max(longest, r.Seconds)
		replayedAll = replayedAll && r.Replayed == r.Replays
		cancel := "–"
		if c := r.Cancel; c != nil {
			switch {
			case c.Finished:
				cancel = fmt.Sprintf("finished before %.0f s", c.After)
			case c.Result.Deliveries == 0 && c.Result.Externals == 0:
				cancels++
				latency = max(latency, c.Latency)
				cancel = fmt.Sprintf("%.0f s: %.2f s, nothing yet", c.After, c.Latency)
			default:
				cancels++
				latency = max(latency, c.Latency)
				cancel = fmt.Sprintf("%.0f s: %.2f s, %s, replays: %s", c.After, c.Latency, c.Result, yes(c.Replayed))
			}
		}
		rows = append(rows, []string{r.Bug, fmt.Sprint(r.Seed), fmt.Sprintf("%d (%.0f s)", r.SeedsTried, r.FuzzSeconds),
			"`" + r.Fingerprint + "`", r.Input.String(), r.Result.String(), r.Shipped.String(), fmt.Sprintf("%.2f", r.Ratio),
			fmt.Sprintf("%.1f", r.Seconds), fmt.Sprintf("%.0f", r.PeakMiB), fmt.Sprintf("%d/%d", r.Replayed, r.Replays), cancel})
	}
	if len(ratios) > 0 {
		targets := [][]string{
			{fmt.Sprintf("result / shipped trace's result ≤ %.2f", TargetLongRatio), fmt.Sprintf("median %.2f, worst %.2f (%d traces)", median(ratios), worst, len(ratios)), yesNo(worst <= TargetLongRatio)},
			{fmt.Sprintf("ends within its budget + %d s", TargetLongOver), fmt.Sprintf("longest %.1f s (budget %s)", longest, rep.LongBudget),
				yesNo(longest <= budgetSeconds(rep.LongBudget)+TargetLongOver)},
			{fmt.Sprintf("peak memory < %d MiB", TargetLongPeakMiB), fmt.Sprintf("%.0f MiB at most", peak), yesNo(peak < TargetLongPeakMiB)},
			{"every result replays", yes(replayedAll), yesNo(replayedAll)},
		}
		if cancels > 0 {
			targets = append(targets, []string{fmt.Sprintf("cancelled, returns within %d s", TargetLongCancel), fmt.Sprintf("%.2f s at most (%d runs)", latency, cancels), yesNo(latency <= TargetLongCancel)})
		}
		m.table([]string{"target", "demi here", "status"}, targets)
	}
	m.table([]string{"bug", "seed", "seeds fuzzed (time)", "violation", "input", "result", "shipped trace's result", "ratio", "seconds", "peak MiB", "replayed", "cancelled after: returned in"}, rows)
	m.p("The fuzz flags of each bug (seeds from 1, `--seed N --runs 1` regenerates a row's trace):")
	m.p("")
	listed := map[string]bool{}
	for i := range rep.Long {
		if r := &rep.Long[i]; !listed[r.Bug] {
			listed[r.Bug] = true
			m.p("- %s: `demi fuzz %s`", r.Bug, r.FuzzArgs)
		}
	}
	m.p("")
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// budgetSeconds parses a budget as the report stores it (a Go duration).
func budgetSeconds(s string) float64 {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d.Seconds()
}

// longN is the most rows of one bug.
func longN(rows []LongRow) int {
	count := map[string]int{}
	n := 0
	for _, r := range rows {
		count[r.Bug]++
		n = max(n, count[r.Bug])
	}
	return n
}

func runsWord(n int) string {
	if n == 1 {
		return "run"
	}
	return fmt.Sprintf("%d runs", n)
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
