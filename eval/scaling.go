package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// ScalingRow is one minimization of the scaling study.
type ScalingRow struct {
	// Target is the length asked for; Initial the failing trace found.
	Target    int     `json:"target"`
	Initial   Size    `json:"initial"`
	FuzzRuns  int     `json:"fuzz_runs"`
	Seed      uint64  `json:"seed"`
	Workers   int     `json:"workers"`
	Final     Size    `json:"final"`
	Seconds   float64 `json:"seconds"`
	Schedules int64   `json:"schedules"`
	HitBudget bool    `json:"hit_budget"`
	Err       string  `json:"error,omitempty"`
}

// SchedulesPerSecond is the rate of the run.
func (r *ScalingRow) SchedulesPerSecond() float64 {
	if r.Seconds > 0 {
		return float64(r.Schedules) / r.Seconds
	}
	return 0
}

func (s *ScalingConfig) withDefaults() ScalingConfig {
	out := *s
	if len(out.Lengths) == 0 {
		out.Lengths = []int{500, 1000, 2000, 4000}
	}
	if len(out.Workers) == 0 {
		out.Workers = []int{1, 2}
	}
	if out.Budget <= 0 {
		out.Budget = time.Minute
	}
	if out.Runs <= 0 {
		out.Runs = 3000
	}
	if out.Seed == 0 {
		out.Seed = 1
	}
	return out
}

// scaling makes failing traces of growing length with record.Search (the
// fuzzer demi fuzz uses) and minimizes each with every worker count.
func (c *Config) scaling(ctx context.Context, rep *Report, update func() error) error {
	sc := c.Scaling.withDefaults()
	rep.Scale = sc
	bug := sc.Bug
	if bug != "" {
		if _, err := os.Stat(filepath.Join(c.TraceDir, bug+".trace")); err != nil {
			bug = "" // the preferred bug is not shipped: use the first one evaluated
		}
	}
	if bug == "" && len(rep.Rows) > 0 {
		bug = rep.Rows[0].Bug
	}
	if bug == "" {
		return fmt.Errorf("eval: scaling: no bug to scale")
	}
	rep.Scale.Bug = bug
	base, sys, err := record.ReadFile(filepath.Join(c.TraceDir, bug+".trace"), c.Catalog)
	if err != nil {
		return fmt.Errorf("eval: scaling: %w", err)
	}
	opts := base.Header.OptionMap()
	fp := ""
	if base.Header.Violation != nil {
		fp = base.Header.Violation.Fingerprint
	}
	for _, n := range sc.Lengths {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.Log("scaling: looking for a %s trace of at least %d deliveries", bug, n)
		t, runs, err := findLong(ctx, sys, opts, fp, n, sc)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("eval: scaling: %w", err)
		}
		if t == nil {
			for _, w := range sc.Workers {
				rep.Scaling = append(rep.Scaling, ScalingRow{Target: n, FuzzRuns: runs, Workers: w,
					Err: fmt.Sprintf("no violation between %d and %d deliveries in %d fuzz runs", n, 2*n, runs)})
			}
			if err := update(); err != nil {
				return err
			}
			continue
		}
		for _, w := range sc.Workers {
			row := ScalingRow{Target: n, Initial: sizeOf(t), FuzzRuns: runs, Seed: t.Header.Seed, Workers: w}
			c.Log("scaling: minimizing %s with -j %d (budget %s)", row.Initial, w, sc.Budget)
			res, _, err := c.runMinimize(ctx, sys, t, minimize.Config{Budget: sc.Budget, Strategy: "tfb", Workers: w})
			switch {
			case err != nil && ctx.Err() != nil:
				return ctx.Err()
			case err != nil:
				row.Err = err.Error()
			case res.Interrupted:
				return context.Canceled
			default:
				row.Final = sizeOf(res.Trace)
				for _, st := range res.Stages {
					row.Seconds += st.Seconds
					row.Schedules += st.Schedules
				}
				row.HitBudget = row.Seconds >= 0.97*sc.Budget.Seconds()
			}
			rep.Scaling = append(rep.Scaling, row)
			c.Log("scaling: %d deliveries, -j %d: %s in %.1fs, %d schedules", row.Initial.Deliveries, w, row.Final, row.Seconds, row.Schedules)
			if err := c.plotScaling(rep); err != nil {
				return err
			}
			if err := update(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Config) plotScaling(rep *Report) error {
	if c.ImgDir == "" {
		return nil
	}
	for _, r := range rep.Scaling {
		if r.Err == "" && r.Seconds > 0 {
			name := "scaling.png"
			if err := PlotScaling(filepath.Join(c.ImgDir, name), rep.Scale.Bug, rep.Scaling); err != nil {
				return err
			}
			rep.ScalingPlot = filepath.ToSlash(filepath.Join(c.ImgLink, name))
			return nil
		}
	}
	return nil
}

// findLong fuzzes seed after seed for a violation with the same
// fingerprint and at least n deliveries.
func findLong(ctx context.Context, sys *record.System, opts record.Options, fp string, n int, sc ScalingConfig) (*record.Trace, int, error) {
	// Runs end at 2n deliveries, so the trace found is between n and 2n
	// long, with demi fuzz's default of 100 random external events (as the
	// shipped traces).
	cfg := record.FuzzConfig{MaxSteps: 2 * n, MaxExternals: 100}
	tried := 0
	for tried < sc.Runs {
		cfg.Seed = sc.Seed + uint64(tried)
		t, runs, err := record.Search(ctx, sys, opts, record.SearchConfig{FuzzConfig: cfg, Runs: sc.Runs - tried, MinDeliveries: n})
		tried += runs
		if err != nil {
			return nil, tried, err
		}
		if t == nil {
			return nil, tried, nil
		}
		if fp == "" || t.Header.Violation.Same(record.Want(fp)) {
			t.Header.Note = fmt.Sprintf("scaling study: fuzz seed=%d max-steps=%d min-deliveries=%d", t.Header.Seed, cfg.MaxSteps, n)
			return t, tried, nil
		}
	}
	return nil, tried, nil
}
