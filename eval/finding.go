package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/demi-project/demi/record"
)

// The time-to-bug study: how fast each fuzz mode (record.Modes: the
// random walk, swarm, rounds, coverage) finds each bug, from fixed seed
// ranges, and how many abstract states each covers as it goes.

// FindingCase is one bug of the time-to-bug study: a system and the
// options that switch the bug on.
type FindingCase struct {
	Name    string         `json:"name"`
	System  string         `json:"system"`
	Options record.Options `json:"options"`
	// Hard marks the hard-bug set: bugs the random walk with default
	// flags found in fewer than 1 of 1,000 runs when they were chosen.
	Hard bool `json:"hard,omitempty"`
}

// FindingConfig configures the time-to-bug study.
type FindingConfig struct {
	Cases []FindingCase
	// Modes are the modes compared, by name (default: every record.Modes).
	Modes []string
	// Trials per case and mode (default 20). Trial t searches from seed
	// From + t*CapRuns, so trials use disjoint, fixed seed ranges.
	Trials int
	// From is the first seed of trial 0 (default 1, the evaluation's):
	// another range measures a change on seeds it was not chosen on.
	From uint64
	// CapRuns and CapTime bound a trial (default 1000 runs, 5 min): a
	// trial that reaches either without a violation did not find the bug.
	// The runs cap is the measure (a run costs the same whatever else
	// runs on the machine); the time cap only guards against a mode
	// whose runs never end.
	CapRuns int
	CapTime time.Duration
	// Workers run trials in parallel (default 2).
	Workers int
	// Curves are the systems (with options) whose abstract-state coverage
	// is measured run by run for each mode, CurveRuns runs from seed 1
	// (default 150).
	Curves    []FindingCase
	CurveRuns int
}

func (c FindingConfig) withDefaults() FindingConfig {
	if len(c.Modes) == 0 {
		for _, m := range record.Modes() {
			c.Modes = append(c.Modes, m.Name())
		}
	}
	if c.Trials <= 0 {
		c.Trials = 20
	}
	if c.CapRuns <= 0 {
		c.CapRuns = 1000
	}
	if c.CapTime <= 0 {
		c.CapTime = 5 * time.Minute
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.CurveRuns <= 0 {
		c.CurveRuns = 150
	}
	if c.From == 0 {
		c.From = 1
	}
	return c
}

// FindingTrial is one trial: the runs and seconds to the first violation,
// or to the cap.
type FindingTrial struct {
	Seed    uint64  `json:"seed"`
	Runs    int     `json:"runs"`
	Seconds float64 `json:"seconds"`
	Found   bool    `json:"found"`
}

// FindingRow is one case and mode of the study.
type FindingRow struct {
	Case   string         `json:"case"`
	System string         `json:"system"`
	Hard   bool           `json:"hard,omitempty"`
	Mode   string         `json:"mode"`
	Skip   string         `json:"skip,omitempty"` // why the mode does not apply
	Trials []FindingTrial `json:"trials,omitempty"`
}

// Found is the number of trials that found the bug.
func (r *FindingRow) Found() int {
	n := 0
	for _, t := range r.Trials {
		if t.Found {
			n++
		}
	}
	return n
}

// MedianRuns returns the median of the trials' runs to the bug, a trial
// that did not find it counting as more than any that did; ok is false
// when that median is a trial that did not find it.
func (r *FindingRow) MedianRuns() (runs int, ok bool) {
	return r.quantile(0.5, func(t FindingTrial) float64 { return float64(t.Runs) })
}

// RunsQuartiles returns the first and third quartiles of the runs (see
// MedianRuns); ok false: that quartile did not find the bug.
func (r *FindingRow) RunsQuartiles() (q1 int, ok1 bool, q3 int, ok3 bool) {
	q1, ok1 = r.quantile(0.25, func(t FindingTrial) float64 { return float64(t.Runs) })
	q3, ok3 = r.quantile(0.75, func(t FindingTrial) float64 { return float64(t.Runs) })
	return
}

// MedianSeconds is MedianRuns in seconds.
func (r *FindingRow) MedianSeconds() (float64, bool) {
	if len(r.Trials) == 0 {
		return 0, false
	}
	ts := slices.Clone(r.Trials)
	sort.SliceStable(ts, func(i, j int) bool { return less(ts[i], ts[j], func(t FindingTrial) float64 { return t.Seconds }) })
	t := ts[(len(ts)-1)/2]
	return t.Seconds, t.Found
}

func (r *FindingRow) quantile(q float64, key func(FindingTrial) float64) (int, bool) {
	if len(r.Trials) == 0 {
		return 0, false
	}
	ts := slices.Clone(r.Trials)
	sort.SliceStable(ts, func(i, j int) bool { return less(ts[i], ts[j], key) })
	t := ts[int(q*float64(len(ts)-1))]
	return int(key(t)), t.Found
}

// less orders trials by key, those that did not find the bug last.
func less(a, b FindingTrial, key func(FindingTrial) float64) bool {
	if a.Found != b.Found {
		return a.Found
	}
	return key(a) < key(b)
}

// CoverageCurve is the abstract states one mode covered, run by run.
type CoverageCurve struct {
	Case   string  `json:"case"`
	Mode   string  `json:"mode"`
	States []int   `json:"states"`  // after run 1, 2, ...
	Second float64 `json:"seconds"` // for all the runs
}

// FindingReport is the study's results.
type FindingReport struct {
	Generated string          `json:"generated"`
	Trials    int             `json:"trials"`
	From      uint64          `json:"from,omitempty"` // the first seed; 0: 1
	CapRuns   int             `json:"cap_runs"`
	CapTime   string          `json:"cap_time"`
	Workers   int             `json:"workers"`
	Load      string          `json:"load,omitempty"`
	Seconds   float64         `json:"seconds"`
	Cases     []FindingCase   `json:"cases"`
	Rows      []FindingRow    `json:"rows"`
	Curves    []CoverageCurve `json:"curves,omitempty"`
	// Plots are the markdown links to the coverage plots, by case.
	Plots map[string]string `json:"plots,omitempty"`
}

// Row returns the row of a case and mode, or nil.
func (f *FindingReport) Row(c, mode string) *FindingRow {
	for i := range f.Rows {
		if f.Rows[i].Case == c && f.Rows[i].Mode == mode {
			return &f.Rows[i]
		}
	}
	return nil
}

// RunFinding runs the time-to-bug study. update is called after every
// case with the results so far.
func RunFinding(ctx context.Context, cat *record.Catalog, cfg FindingConfig, imgDir, imgLink string,
	log func(string, ...any), update func(*FindingReport) error) (*FindingReport, error) {
	c := cfg.withDefaults()
	if log == nil {
		log = func(string, ...any) {}
	}
	start := time.Now()
	rep := &FindingReport{Generated: start.UTC().Format("2006-01-02 15:04 UTC"), Trials: c.Trials, CapRuns: c.CapRuns,
		From:    c.From,
		CapTime: c.CapTime.String(), Workers: c.Workers, Cases: c.Cases}
	load0 := loadAverage()
	modes := make([]record.Mode, len(c.Modes))
	for i, name := range c.Modes {
		m, err := record.LookupMode(name)
		if err != nil {
			return nil, err
		}
		modes[i] = m
	}
	for _, fc := range c.Cases {
		sys, err := cat.Lookup(fc.System)
		if err != nil {
			return rep, err
		}
		// The trials of every mode of the case share the workers, so that
		// a mode's slowest trial does not leave the others idle.
		var rows []FindingRow
		var run []record.Mode
		for _, m := range modes {
			row := FindingRow{Case: fc.Name, System: fc.System, Hard: fc.Hard, Mode: m.Name()}
			if _, err := m.Campaign(sys, fc.Options, record.SearchConfig{}); err != nil {
				if !errors.Is(err, record.ErrNoRounds) {
					return rep, err
				}
				row.Skip = "no rounds"
			} else {
				run = append(run, m)
			}
			rows = append(rows, row)
		}
		trials, err := c.trials(ctx, sys, fc.Options, run)
		if err != nil {
			return rep, err
		}
		for _, row := range rows {
			if row.Skip == "" {
				row.Trials, trials = trials[0], trials[1:]
				med, ok := row.MedianRuns()
				log("finding: %s %s: %d/%d found, median %d runs (found: %v)", fc.Name, row.Mode, row.Found(), len(row.Trials), med, ok)
			}
			rep.Rows = append(rep.Rows, row)
		}
		rep.Seconds = time.Since(start).Seconds()
		if update != nil {
			if err := update(rep); err != nil {
				return rep, err
			}
		}
	}
	for _, cc := range c.Curves {
		sys, err := cat.Lookup(cc.System)
		if err != nil {
			return rep, err
		}
		for _, m := range modes {
			curve, err := coverageCurve(ctx, sys, cc.Options, m, c.CurveRuns)
			if errors.Is(err, record.ErrNoRounds) {
				continue
			}
			if err != nil {
				return rep, err
			}
			curve.Case = cc.Name
			rep.Curves = append(rep.Curves, *curve)
			log("finding: coverage of %s, %s: %d states in %d runs", cc.Name, m.Name(), curve.States[len(curve.States)-1], len(curve.States))
		}
		if imgDir != "" {
			name := "coverage-" + cc.Name + ".png"
			if err := PlotCoverage(imgDir+"/"+name, cc.Name, rep.Curves); err != nil {
				return rep, err
			}
			if rep.Plots == nil {
				rep.Plots = map[string]string{}
			}
			rep.Plots[cc.Name] = imgLink + "/" + name
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Load = fmt.Sprintf("%s at the start, %s at the end", load0, loadAverage())
	if update != nil {
		return rep, update(rep)
	}
	return rep, nil
}

// trials runs the trials of one case in each of modes, c.Workers at a
// time, and returns them by mode.
func (c FindingConfig) trials(ctx context.Context, sys *record.System, opts record.Options, modes []record.Mode) ([][]FindingTrial, error) {
	out := make([][]FindingTrial, len(modes))
	errs := make([]error, len(modes)*c.Trials)
	var wg sync.WaitGroup
	sem := make(chan struct{}, c.Workers)
	for i, m := range modes {
		out[i] = make([]FindingTrial, c.Trials)
		for t := range c.Trials {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				seed := c.From + uint64(t)*uint64(c.CapRuns)
				tctx, cancel := context.WithTimeout(ctx, c.CapTime)
				defer cancel()
				start := time.Now()
				cfg := record.SearchConfig{Runs: c.CapRuns, Mode: m}
				cfg.Seed = seed
				tr, runs, err := record.Search(tctx, sys, opts, cfg)
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					errs[i*c.Trials+t] = err
					return
				}
				out[i][t] = FindingTrial{Seed: seed, Runs: runs, Seconds: time.Since(start).Seconds(), Found: tr != nil}
			}()
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// coverageCurve runs n runs of mode m from seed 1 and counts, after each,
// the abstract states (record.Abstraction) all the runs so far reached,
// by replaying each run's events.
func coverageCurve(ctx context.Context, sys *record.System, opts record.Options, m record.Mode, n int) (*CoverageCurve, error) {
	camp, err := m.Campaign(sys, opts, record.SearchConfig{})
	if err != nil {
		return nil, err
	}
	curve := &CoverageCurve{Mode: m.Name()}
	seen := map[uint64]struct{}{}
	start := time.Now()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := camp.Run(ctx, 1+uint64(i), nil)
		if err != nil {
			return nil, err
		}
		if err := covered(res.Sim, seen); err != nil {
			return nil, err
		}
		curve.States = append(curve.States, len(seen))
	}
	curve.Second = time.Since(start).Seconds()
	return curve, nil
}

// covered replays run's events on a fresh Sim of its setup and adds the
// abstract state after every event to seen.
func covered(run *record.Sim, seen map[uint64]struct{}) error {
	sim, err := run.Setup().NewSim()
	if err != nil {
		return err
	}
	abs := record.NewAbstraction(sim)
	seen[abs.Global()] = struct{}{}
	for i, e := range run.Events() {
		if sim.Halted() != nil {
			break
		}
		if err := sim.Step(e); err != nil {
			return fmt.Errorf("coverage replay, event %d: %w", i, err)
		}
		seen[abs.Update(&e)] = struct{}{}
	}
	return nil
}
