package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// DPORConfig is the DPOR study: on every bug's shipped failing trace, the
// DEMi paper's Algorithm 1 (delta debugging over the external events, each
// subsequence checked by a schedule exploration), then delta debugging over
// the deliveries that remain, once per way of checking a candidate
// (DPORVariants): the paper's STSSched against TFB, wildcards on and off,
// Broad backtracks on and off, and the three backtrack orders. It isolates
// the checks from the rest of minimize's pipeline: every variant runs the
// same two delta debugging passes (minimize.DDMin), so the sizes differ only
// by what the checks find.
type DPORConfig struct {
	// Bugs restricts the study (default: every bug evaluated).
	Bugs []string
	// Schedules is the schedule budget of a TFB check (default 16,
	// minimize's MaxSchedules), the same on every trace length.
	Schedules int
	// Steps caps each pass of each variant, in executed events (default
	// 1,500,000); a pass that reaches it stops with its best so far and is
	// marked capped. The cap is counted, not timed, so the results do not
	// depend on the machine.
	Steps int64
	// Workers runs that many variants (of any bugs) at once (default
	// Config.Workers); the results do not depend on it.
	Workers int
	// Fresh adds, for each case, a row on the case's first fresh failing
	// trace (Config.FirstFresh): the input the fresh-seed study minimizes
	// first, which no one shaped the minimizer on. Its MaxSeeds bounds
	// the fuzz runs spent finding it (default 3000).
	Fresh    []FreshCase
	MaxSeeds int
}

// DPORVariant is one way of checking a candidate.
type DPORVariant struct {
	Name      string     `json:"name"`
	Mode      dpor.Mode  `json:"-"`
	Wildcards bool       `json:"wildcards"`
	Broad     bool       `json:"broad"`
	Order     dpor.Order `json:"-"`
	// Schedules is the schedule budget of one check (1 for STSSched).
	Schedules int `json:"schedules"`
}

// DPORVariants returns the study's variants for a TFB budget of
// schedules: the paper's STSSched column (exact fingerprints, one
// schedule), STSSched with wildcards, the paper's TFB (exact fingerprints,
// type-matching backtracks), TFB with wildcards (what minimize's removal
// stages run), with Broad backtracks, and with the deepest-first and
// distance orders.
func DPORVariants(schedules int) []DPORVariant {
	return []DPORVariant{
		{Name: "STSSched", Mode: dpor.STS, Schedules: 1},
		{Name: "STSSched+wild", Mode: dpor.STS, Wildcards: true, Schedules: 1},
		{Name: "TFB", Mode: dpor.TFB, Schedules: schedules},
		{Name: "TFB+wild", Mode: dpor.TFB, Wildcards: true, Schedules: schedules},
		{Name: "TFB+wild+broad", Mode: dpor.TFB, Wildcards: true, Broad: true, Schedules: schedules},
		{Name: "TFB+wild deepest", Mode: dpor.TFB, Wildcards: true, Order: dpor.Deepest, Schedules: schedules},
		{Name: "TFB+wild distance", Mode: dpor.TFB, Wildcards: true, Order: dpor.Distance, Schedules: schedules},
	}
}

// DPORPass is one delta debugging pass of a variant.
type DPORPass struct {
	Size Size `json:"size"`
	// Checks is the candidates checked, Reproduced how many reproduced.
	Checks     int `json:"checks"`
	Reproduced int `json:"reproduced"`
	// Schedules and Steps are what the checks executed.
	Schedules int64 `json:"schedules"`
	Steps     int64 `json:"steps"`
	// Backtracked is how many reproducing checks needed more than the
	// first schedule.
	Backtracked int     `json:"backtracked"`
	Capped      bool    `json:"capped,omitempty"`
	Seconds     float64 `json:"seconds"`
}

// DPORRun is one variant on one bug.
type DPORRun struct {
	Variant string `json:"variant"`
	// Externals is Algorithm 1 (delta debugging over the external events);
	// Internals the pass over the deliveries after it.
	Externals DPORPass `json:"externals"`
	Internals DPORPass `json:"internals"`
}

// DPORRow is one bug of the DPOR study.
type DPORRow struct {
	Bug string `json:"bug"`
	// Seed, when set, says the input is the bug's first fresh failing
	// trace, fuzzed from this seed, rather than its shipped trace.
	Seed  uint64    `json:"fresh_seed,omitempty"`
	Input Size      `json:"input"`
	Runs  []DPORRun `json:"runs"`
	Err   string    `json:"error,omitempty"`
}

// Label names the row's input: the bug, and the seed of a fresh trace.
func (r *DPORRow) Label() string {
	if r.Seed != 0 {
		return fmt.Sprintf("%s, fresh seed %d", r.Bug, r.Seed)
	}
	return r.Bug
}

// errStepCap ends a pass that reached DPORConfig.Steps.
var errStepCap = errors.New("the pass reached its step cap")

func (dc *DPORConfig) withDefaults(c *Config) DPORConfig {
	out := *dc
	if out.Schedules <= 0 {
		out.Schedules = 16
	}
	if out.Steps <= 0 {
		out.Steps = 1_500_000
	}
	if out.Workers <= 0 {
		out.Workers = c.Workers
	}
	if out.MaxSeeds <= 0 {
		out.MaxSeeds = 3000
	}
	return out
}

// dporStudy runs the DPOR study on bugs: every variant of every bug is one
// job, dc.Workers jobs at a time; a bug's row is added (and update called)
// once its variants are done, in bug order.
func (c *Config) dporStudy(ctx context.Context, rep *Report, bugs []string, update func() error) error {
	dc := c.DPOR.withDefaults(c)
	if len(dc.Bugs) > 0 {
		bugs = dc.Bugs
	}
	rep.DPOR = nil
	rep.DPORGenerated = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	rep.DPORSchedules, rep.DPORSteps = dc.Schedules, dc.Steps
	vs := DPORVariants(dc.Schedules)
	rows := make([]DPORRow, len(bugs))
	traces := make([]*record.Trace, len(bugs))
	systems := make([]*record.System, len(bugs))
	for i, b := range bugs {
		rows[i] = DPORRow{Bug: b, Runs: make([]DPORRun, len(vs))}
		t, sys, err := record.ReadFile(filepath.Join(c.TraceDir, b+".trace"), c.Catalog)
		if err == nil && t.Header.Violation == nil {
			err = fmt.Errorf("%s.trace records no violation", b)
		}
		if err != nil {
			rows[i].Err = err.Error()
			continue
		}
		rows[i].Input, traces[i], systems[i] = sizeOf(t), t, sys
	}
	for _, fc := range dc.Fresh {
		if !slices.Contains(bugs, fc.Bug) {
			continue
		}
		row := DPORRow{Bug: fc.Bug, Runs: make([]DPORRun, len(vs))}
		c.Log("dpor study: %s: fuzzing its first fresh failing trace", fc.Bug)
		t, sys, err := c.FirstFresh(ctx, fc, dc.MaxSeeds)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row.Err = "fresh trace: " + err.Error()
			t, sys = nil, nil
		} else {
			row.Seed, row.Input = t.Header.Seed, sizeOf(t)
		}
		rows, traces, systems = append(rows, row), append(traces, t), append(systems, sys)
	}
	type job struct{ bug, variant int }
	jobs := make(chan job, len(rows)*len(vs))
	for i := range rows {
		if traces[i] == nil {
			continue
		}
		for k := range vs {
			jobs <- job{i, k}
		}
	}
	close(jobs)
	var mu sync.Mutex
	left := make([]int, len(rows))
	for i := range rows {
		if traces[i] != nil {
			left[i] = len(vs)
		}
	}
	added := 0
	var updateErr error
	// flush adds the finished rows at the front, in bug order (mu held).
	flush := func() {
		for added < len(rows) && left[added] == 0 {
			r := rows[added]
			for _, run := range r.Runs {
				c.Log("dpor study: %s %s: externals %s (%d schedules%s), internals %s (%d schedules%s)", r.Label(), run.Variant,
					run.Externals.Size, run.Externals.Schedules, cappedNote(run.Externals.Capped), run.Internals.Size,
					run.Internals.Schedules, cappedNote(run.Internals.Capped))
			}
			rep.DPOR = append(rep.DPOR, r)
			added++
			if updateErr == nil {
				updateErr = update()
			}
		}
	}
	mu.Lock()
	flush()
	mu.Unlock()
	var wg sync.WaitGroup
	for range max(1, dc.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					return
				}
				run, err := dporRun(ctx, dc, systems[j.bug], traces[j.bug], vs[j.variant])
				mu.Lock()
				rows[j.bug].Runs[j.variant] = run
				if err != nil && ctx.Err() == nil && rows[j.bug].Err == "" {
					rows[j.bug].Err = err.Error()
					c.Log("dpor study: %s %s: %v", rows[j.bug].Label(), vs[j.variant].Name, err)
				}
				left[j.bug]--
				flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return updateErr
}

func cappedNote(capped bool) string {
	if capped {
		return ", capped"
	}
	return ""
}

// dporRun runs variant v's two passes on t.
func dporRun(ctx context.Context, dc DPORConfig, sys *record.System, t *record.Trace, v DPORVariant) (DPORRun, error) {
	run := DPORRun{Variant: v.Name}
	chk, err := dpor.New(dpor.Config{System: sys, Options: t.Header.OptionMap(), Seed: t.Header.Seed,
		Target: t.Header.Violation.Fingerprint, Mode: v.Mode, MaxSchedules: v.Schedules, Broad: v.Broad, Order: v.Order})
	if err != nil {
		return run, err
	}
	fp := chk.Fingerprinter()
	pass := func(t *record.Trace, internals bool, out *DPORPass) (*record.Trace, error) {
		start := time.Now()
		check := func(ctx context.Context, plan dpor.Plan) (*record.Trace, error) {
			if out.Steps >= dc.Steps {
				return nil, errStepCap
			}
			res, err := chk.Check(ctx, plan)
			out.Schedules += int64(res.Schedules)
			out.Steps += int64(res.Schedules) * int64(len(plan))
			if res.Trace != nil {
				out.Reproduced++
				if res.Schedules > 1 {
					out.Backtracked++
				}
			}
			return res.Trace, err
		}
		best, checks, err := minimize.DDMin(ctx, fp, t, internals, v.Wildcards, check)
		out.Checks, out.Size, out.Seconds = checks, sizeOf(best), time.Since(start).Seconds()
		if errors.Is(err, errStepCap) {
			out.Capped, out.Checks, err = true, checks-1, nil
		}
		return best, err
	}
	mid, err := pass(t, false, &run.Externals)
	if err != nil {
		return run, err
	}
	_, err = pass(mid, true, &run.Internals)
	return run, err
}
