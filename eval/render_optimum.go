package eval

import "fmt"

// optimumStudy renders the optimum study.
func (m *md) optimumStudy(rep *Report) {
	if len(rep.Optimum) == 0 {
		return
	}
	m.p("## Proven optima: exhaustive search over schedules and subsets of the external events")
	m.p("")
	how := ""
	if rep.OptimumWorkers > 0 {
		how = fmt.Sprintf(", %d walkers per search (`-j %d`; the answers do not depend on it)", rep.OptimumWorkers, rep.OptimumWorkers)
	}
	if rep.OptimumLoad != "" {
		how += fmt.Sprintf(", load average %s on the shared machine", rep.OptimumLoad)
	}
	m.p("Measured %s, budget %s per bug%s. For every bug, `demi optimal --subsets` (package `optimal`) runs on the best "+
		"known reproducer (the smaller of the reference and the shipped `.min.trace`, by deliveries plus externals) with a "+
		"bound of one less than its size. It chooses which of the trace's external events happen (each, in order, applied "+
		"or left out) and every schedule of deliveries, by iterative deepening on deliveries plus externals, and identifies "+
		"a state by a hash of every actor's state, the pending messages and the next external event, so schedules that "+
		"reach the same global state are expanded once per bound; a delivery that changes nothing is not expanded and the "+
		"last step of a schedule is only checked (package `optimal` documents each reduction and why it is exact). Where "+
		"the system supplies an admissible lower bound on the events a state still needs to reach the violation (Raft "+
		"does: `record.System.LowerBound`, examples/raft/lowerbound.go), a state whose bound exceeds the budget left is "+
		"not expanded (IDA*; the system bound column counts the states cut). A search that finishes proves the optimum over those "+
		"external events and their subsequences (other external events, such as other client commands or a different "+
		"bootstrap configuration, are outside it); one that runs out of budget proves a lower bound: every reproducer "+
		"costs more than the last bound it finished. Expanded states per second is the search's speed; it counts states "+
		"whose successors were generated, not the last steps only checked. CPU seconds are what the search used over its "+
		"walkers: on 2 idle cores they would be up to twice the seconds.", rep.OptimumGenerated, rep.OptimumBudget, how)
	m.p("")
	var rows [][]string
	for i := range rep.Optimum {
		r := &rep.Optimum[i]
		rows = append(rows, []string{r.Bug, r.Of, fmt.Sprintf("%s = %d", r.Input, r.Input.total()), r.Verdict(),
			fmt.Sprint(r.States), fmt.Sprint(r.Expanded), fmt.Sprintf("%.0f", r.ExpandedPerSecond()), fmt.Sprintf("%.1f", r.Seconds),
			cpu(r.CPUSeconds), systemBound(r)})
	}
	m.table([]string{"bug", "searched", "size (total)", "verdict", "states", "expanded", "expanded/s", "seconds", "CPU seconds", "system bound"}, rows)
}

// cpu writes CPU seconds, "–" when not measured.
func cpu(s float64) string {
	if s <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", s)
}

// systemBound says whether the system's lower bound pruned a search.
func systemBound(r *OptimumRow) string {
	if !r.SystemBound {
		return "–"
	}
	return fmt.Sprintf("used (%d states cut)", r.BoundCuts)
}
