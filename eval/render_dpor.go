package eval

import (
	"fmt"
	"strings"
)

// dporStudy renders the DPOR study.
func (m *md) dporStudy(rep *Report) {
	if len(rep.DPOR) == 0 {
		return
	}
	m.p("## DPOR study: STSSched against type-fingerprint backtracks")
	m.p("")
	m.p("Measured %s; regenerate this section alone with `go run ./cmd/demi-eval --docs --studies dpor` "+
		"(the other sections are kept from docs/evaluation.json). On every bug's shipped failing trace, and on the "+
		"first fresh failing trace of every bug the fresh-seed study covers (the first seed after the shipped one "+
		"whose run breaks the same invariant: an input no one shaped the minimizer on), each "+
		"variant runs the DEMi paper's Algorithm 1, delta debugging over the external events with every "+
		"subsequence checked by the variant (`minimize.DDMin`, the units and plans of minimize's ddmin-externals "+
		"stage), then delta debugging over the deliveries that remain (every external event kept, as minimize's "+
		"ddmin-internals stage), and nothing else: the sizes differ only by what the checks find. Variants: "+
		"**STSSched** is the paper's STSSched column (one schedule per subsequence, exact fingerprints); "+
		"**TFB** adds type-fingerprint backtracks (up to %d schedules per check, the same on every trace length, "+
		"earliest step first), the paper's TFB; **+wild** matches every delivery by type when its exact "+
		"fingerprint is absent (minimize's wildcards); **+broad** also backtracks on messages of other types, "+
		"after the type-matching ones; **deepest** and **distance** are the other backtrack orders of DEMi's "+
		"implementation (latest step first; misordered pairs plus new events). Each pass stops at %s executed "+
		"events (marked *capped*, its best so far kept); the cap is counted, so the numbers do not depend on the "+
		"machine. A cell is the size after the pass and, in parentheses, the schedules it executed.",
		rep.DPORGenerated, rep.DPORSchedules, thousands(float64(rep.DPORSteps)))
	m.p("")
	var names []string
	for _, r := range rep.DPOR {
		if len(r.Runs) > 0 {
			for _, run := range r.Runs {
				names = append(names, run.Variant)
			}
			break
		}
	}
	for _, pass := range []struct {
		title string
		of    func(*DPORRun) *DPORPass
	}{
		{"After Algorithm 1 (delta debugging over the external events):", func(r *DPORRun) *DPORPass { return &r.Externals }},
		{"After delta debugging over the deliveries that remain:", func(r *DPORRun) *DPORPass { return &r.Internals }},
	} {
		m.p("%s", pass.title)
		m.p("")
		var rows [][]string
		for _, fresh := range []bool{false, true} {
			totals := make([]int, len(names))
			scheds := make([]int64, len(names))
			n := 0
			for _, r := range rep.DPOR {
				if (r.Seed != 0) != fresh {
					continue
				}
				n++
				if r.Err != "" {
					rows = append(rows, append([]string{r.Label(), r.Input.String(), "error: " + r.Err}, make([]string, len(names)-1)...))
					continue
				}
				row := []string{r.Label(), r.Input.String()}
				for i := range r.Runs {
					p := pass.of(&r.Runs[i])
					cell := fmt.Sprintf("%s (%d)", p.Size, p.Schedules)
					if p.Capped {
						cell += " capped"
					}
					row = append(row, cell)
					if i < len(totals) {
						totals[i] += p.Size.total()
						scheds[i] += p.Schedules
					}
				}
				rows = append(rows, row)
			}
			if n == 0 {
				continue
			}
			total := []string{"**total, shipped traces**", ""}
			if fresh {
				total[0] = "**total, fresh traces**"
			}
			for i := range names {
				total = append(total, fmt.Sprintf("%d (%d)", totals[i], scheds[i]))
			}
			rows = append(rows, total)
		}
		m.table(append([]string{"bug", "input"}, names...), rows)
	}
	m.p("<details><summary>Checks of every pass: reproduced / checked, and how many reproductions needed a backtrack</summary>")
	m.p("")
	var rows [][]string
	for _, r := range rep.DPOR {
		for _, run := range r.Runs {
			rows = append(rows, []string{r.Label(), run.Variant, passDetail(&run.Externals), passDetail(&run.Internals)})
		}
	}
	m.table([]string{"bug", "variant", "externals pass", "deliveries pass"}, rows)
	m.p("</details>")
	m.p("")
}

// passDetail writes a pass's checks: reproduced/checked, backtracked,
// steps, seconds.
func passDetail(p *DPORPass) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d reproduced, %d after a backtrack, %s steps, %.1fs", p.Reproduced, p.Checks, p.Backtracked,
		thousands(float64(p.Steps)), p.Seconds)
	if p.Capped {
		b.WriteString(", capped")
	}
	return b.String()
}
