package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/demi-project/demi/optimal"
)

// The optimum study asks, for every bug, whether anything smaller than
// the best known reproducer exists: `demi optimal --subsets` (package
// optimal's global-state search over every subsequence of the external
// events and every schedule of them) runs on the best known trace (the
// smaller of the reference and the shipped .min.trace) with a bound of
// one less than its size. When it finishes without a smaller schedule, the
// best known size is the proven optimum for those external events and
// their subsequences; when the budget runs out first, the cost it
// completed is a proven lower bound.

// OptimumConfig configures the optimum study.
type OptimumConfig struct {
	// Bugs are the bugs to search (default: every bug with a trace).
	Bugs []string
	// Budget bounds each search (default 10m).
	Budget time.Duration
	// Workers is the walkers of each search (default 2, optimal.Config.
	// Workers; the answers do not depend on it, the speed does).
	Workers int
	// MaxStates bounds each search's states (default 30,000,000, about
	// 2 GB; a 10-minute search meets fewer).
	MaxStates int
}

// OptimumRow is the optimum study of one bug.
type OptimumRow struct {
	Bug string `json:"bug"`
	// Of names the trace searched and Input its size.
	Of    string `json:"of"`
	Input Size   `json:"input"`
	// Found is a smaller reproducer the search found, if any.
	Found *Size `json:"found,omitempty"`
	// Exhausted: the search finished, so Input (or Found) is optimal.
	Exhausted bool `json:"exhausted"`
	// LowerBound is the smallest deliveries plus externals a reproducer
	// can have, as far as the search proved.
	LowerBound int `json:"lower_bound"`
	// States is the number of distinct states the search met, Expanded
	// its expansions (the iterative deepening expands a state again at
	// each larger bound).
	States   int     `json:"states"`
	Expanded int     `json:"expanded"`
	Seconds  float64 `json:"seconds"`
	// CPUSeconds is the CPU time the search used (every walker): on a
	// shared machine, how much of the 2 cores it got.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// SystemBound: the system's admissible lower bound on the events
	// still needed pruned the search (record.System.LowerBound), cutting
	// BoundCuts states.
	SystemBound bool `json:"system_bound,omitempty"`
	BoundCuts   int  `json:"bound_cuts,omitempty"`
	// Bounds is the search's progress: each cost bound it finished.
	Bounds []BoundProgress `json:"bounds,omitempty"`
	Err    string          `json:"error,omitempty"`
}

// BoundProgress is one finished bound of an optimum search: no schedule of
// cost Bound or less reproduces the violation.
type BoundProgress struct {
	Bound    int     `json:"bound"`
	States   int     `json:"states"`   // distinct states known when it finished
	Expanded int     `json:"expanded"` // expansions so far
	Seconds  float64 `json:"seconds"`  // since the search started
}

// Proven returns the proven optimum, or nil.
func (r *OptimumRow) Proven() *Size {
	if !r.Exhausted || r.Err != "" {
		return nil
	}
	if r.Found != nil {
		s := *r.Found
		return &s
	}
	s := r.Input
	return &s
}

// ExpandedPerSecond is the search's speed.
func (r *OptimumRow) ExpandedPerSecond() float64 {
	if r.Seconds > 0 {
		return float64(r.Expanded) / r.Seconds
	}
	return 0
}

func (c *Config) optimumBug(ctx context.Context, oc OptimumConfig, bug string) (OptimumRow, error) {
	row := OptimumRow{Bug: bug}
	best, sys, of, err := bestKnown(c.TraceDir, bug, c.Catalog)
	if err != nil {
		return row, err
	}
	row.Of = of
	row.Input = sizeOf(best)
	octx, cancel := context.WithTimeout(ctx, oc.Budget)
	defer cancel()
	c.Log("optimum %s: searching below the %s, %s (budget %s)", bug, row.Of, row.Input, oc.Budget)
	// Cost is deliveries plus externals: a bound of one less than the
	// input's deliveries searches every cost below the input's total.
	cpu0 := cpuTime()
	res, err := optimal.Search(octx, sys, best, optimal.Config{MaxDeliveries: row.Input.Deliveries - 1,
		Subsets: true, MaxStates: oc.MaxStates, TotalBound: row.Input.total() - 1, Workers: oc.Workers,
		Progress: func(p optimal.Progress) {
			row.Bounds = append(row.Bounds, BoundProgress{Bound: p.Bound, States: p.States, Expanded: p.Expanded, Seconds: p.Elapsed.Seconds()})
		}})
	if err != nil {
		return row, err
	}
	if ctx.Err() != nil {
		return row, ctx.Err()
	}
	row.States, row.Expanded, row.Seconds, row.Exhausted = res.States, res.Expanded, res.Seconds, res.Exhausted
	row.SystemBound, row.BoundCuts = res.LowerBound, res.BoundCuts
	row.CPUSeconds = (cpuTime() - cpu0).Seconds()
	row.LowerBound = res.Searched + 1
	if res.Trace != nil {
		s := sizeOf(res.Trace)
		row.Found = &s
		row.LowerBound = s.total()
	} else if res.Exhausted {
		row.LowerBound = row.Input.total()
	}
	c.Log("optimum %s: %s", bug, row.Verdict())
	return row, nil
}

// Verdict says in words what the search proved.
func (r *OptimumRow) Verdict() string {
	switch {
	case r.Err != "":
		return "error: " + r.Err
	case r.Found != nil:
		return fmt.Sprintf("smaller reproducer found: %s (total %d, the optimum over the searched trace's external events and their subsequences)", r.Found, r.Found.total())
	case r.Exhausted:
		return fmt.Sprintf("proven optimal over its %d external events and their subsequences: nothing with fewer than %d deliveries plus externals reproduces it", r.Input.Externals, r.Input.total())
	default:
		v := fmt.Sprintf("not finished in %.0fs: every reproducer over its external events and their subsequences has at least %d deliveries plus externals", r.Seconds, r.LowerBound)
		if g, est, ok := r.Outlook(); ok {
			v += fmt.Sprintf("; each bound took about %.1fx the time of the one before, so the %d bounds left would take %s",
				g, r.Input.total()-r.LowerBound, roughDuration(est))
		}
		return v
	}
}

// Outlook extrapolates an unfinished search: the growth of the time per
// bound over its last two finished bounds, and the time the bounds left
// below the input's cost would take at that growth. ok is false when there
// are too few finished bounds (or they took no measurable time).
func (r *OptimumRow) Outlook() (growth, seconds float64, ok bool) {
	n := len(r.Bounds)
	if n < 3 {
		return 0, 0, false
	}
	last := r.Bounds[n-1].Seconds - r.Bounds[n-2].Seconds
	prev := r.Bounds[n-2].Seconds - r.Bounds[n-3].Seconds
	if prev <= 0.05 || last <= 0 {
		return 0, 0, false
	}
	growth = last / prev
	t := last
	for range r.Input.total() - r.LowerBound {
		t *= growth
		seconds += t
	}
	return growth, seconds, true
}

// roughDuration writes about d seconds in the largest unit that fits.
func roughDuration(d float64) string {
	switch {
	case d < 120:
		return fmt.Sprintf("about %.0f s", d)
	case d < 2*3600:
		return fmt.Sprintf("about %.0f min", d/60)
	case d < 2*86400:
		return fmt.Sprintf("about %.0f h", d/3600)
	case d < 2*365*86400:
		return fmt.Sprintf("about %.0f days", d/86400)
	case d < 1000*365*86400:
		return fmt.Sprintf("about %.0f years", d/(365*86400))
	}
	return "over a thousand years"
}

// optimum runs the optimum study into rep.
func (c *Config) optimum(ctx context.Context, rep *Report, bugs []string, update func() error) error {
	oc := *c.Optimum
	if oc.Budget <= 0 {
		oc.Budget = 10 * time.Minute
	}
	if oc.MaxStates <= 0 {
		oc.MaxStates = 30_000_000
	}
	if oc.Workers <= 0 {
		oc.Workers = 2
	}
	if len(oc.Bugs) > 0 {
		bugs = oc.Bugs
	}
	rep.Optimum = nil
	rep.OptimumGenerated = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	rep.OptimumBudget = oc.Budget.String()
	rep.OptimumWorkers = oc.Workers
	load0 := loadAverage()
	rep.OptimumLoad = load0
	for _, b := range bugs {
		row, err := c.optimumBug(ctx, oc, b)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row.Err = err.Error()
		}
		rep.Optimum = append(rep.Optimum, row)
		if load0 != "" {
			rep.OptimumLoad = load0 + " → " + loadAverage()
		}
		if err := update(); err != nil {
			return err
		}
	}
	return nil
}

// LinkOptima sets, in the fresh-seed study, every bug's proven optimum
// from the optimum study and every run's ratio to it (for studies measured
// separately and merged).
func (rep *Report) LinkOptima() {
	for i := range rep.Fresh {
		r := &rep.Fresh[i]
		r.Optimum = rep.ProvenOptimum(r.Bug)
		for k := range r.Runs {
			r.Runs[k].OverOptimum = 0
			if r.Optimum != nil {
				r.Runs[k].OverOptimum = float64(r.Runs[k].Result.total()) / float64(max(r.Optimum.total(), 1))
			}
		}
	}
}
