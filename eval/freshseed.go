package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/demi-project/demi/internal/collector"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The fresh-seed study answers "how well does demi minimize a failing trace
// it has never seen?": for every bug, the fuzz run of its shipped trace is
// repeated with the seeds after the shipped one, and the first N failing
// traces that break the same invariant are minimized. The seeds are the
// first ones the procedure gives, never chosen for how well they minimize;
// the table reports the spread (best, median, worst) against the best known
// size of the bug.

// FreshCase is how one bug's shipped trace was fuzzed: `demi fuzz` with
// these options and this search configuration, whose Seed is the shipped
// seed.
type FreshCase struct {
	Bug     string
	System  string
	Options record.Options
	Search  record.SearchConfig
}

// FreshConfig configures the fresh-seed study.
type FreshConfig struct {
	Cases []FreshCase
	// N is the number of fresh failing traces per bug (default 5).
	N int
	// Budget is each minimization's time budget (default 60s).
	Budget time.Duration
	// MaxSeeds bounds the seeds tried per bug (default 3000).
	MaxSeeds int
	// From, when not 0, is the first seed tried for every bug instead of
	// the one after the shipped seed: a seed range no one has minimized
	// before, for a held-out check.
	From uint64
	// Workers is minimize's -j (default: Config.Workers).
	Workers int
	// Steps is each minimization's step budget (default
	// minimize.DefaultSteps; the traces are shorter than 5,000
	// deliveries).
	Steps int64
	// SaveDir, when not empty, is an existing directory where each fresh
	// failing trace is written, before it is minimized, as
	// <bug>-<seed>.trace: the inputs of the study, to minimize again by
	// hand or with another version of demi.
	SaveDir string
}

// FreshRun is the minimization of one fresh failing trace.
type FreshRun struct {
	Seed        uint64  `json:"seed"`
	Fingerprint string  `json:"fingerprint"`
	Initial     Size    `json:"initial"`
	Result      Size    `json:"result"`
	Seconds     float64 `json:"seconds"`
	// CPUSeconds is the CPU time (user plus system, every worker) the
	// minimization used: what it costs on an idle machine, whatever the
	// load was during the measurement.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	Schedules  int64   `json:"schedules"`
	// Steps is the minimization's work, which does not depend on the
	// machine (minimize.Config.Steps).
	Steps     int64 `json:"steps,omitempty"`
	HitBudget bool  `json:"hit_budget"`
	// Ratio is the result's deliveries plus externals over the bug's best
	// known size's.
	Ratio float64 `json:"ratio"`
	// OverOptimum is the same over the proven optimum, when there is one.
	OverOptimum float64 `json:"over_optimum,omitempty"`
	// Passes sums the run's stage rows up per pass; AfterLast is the
	// share of its steps that came after its last improvement.
	Passes    []minimize.PassStats `json:"passes,omitempty"`
	AfterLast float64              `json:"after_last,omitempty"`
	// Proved: the run's optimum pass proved the result optimal over its
	// own external events (minimize.Result.Optimal): no subsequence of
	// them reproduces the violation with fewer deliveries plus externals.
	Proved bool `json:"proved_optimal,omitempty"`
}

// FreshRow is the fresh-seed study of one bug.
type FreshRow struct {
	Bug string `json:"bug"`
	// Invariant is the shipped violation's fingerprint with the member
	// names replaced by "*": a fresh trace counts when it breaks the same
	// invariant, whichever members it names.
	Invariant string `json:"invariant"`
	// ShippedSeed is the seed of the shipped trace; the fresh seeds are
	// the first after it. SeedsTried counts the fuzz runs.
	ShippedSeed uint64 `json:"shipped_seed"`
	// FirstSeed is the first seed tried: ShippedSeed+1, or FreshConfig.From.
	FirstSeed  uint64 `json:"first_seed,omitempty"`
	SeedsTried int    `json:"seeds_tried"`
	FuzzArgs   string `json:"fuzz_args"`
	// Best is the best known size: the smaller (deliveries plus externals)
	// of the reference and the shipped .min.trace; BestOf names it.
	Best   Size   `json:"best"`
	BestOf string `json:"best_of"`
	// Optimum is the proven optimum, when a search proved one.
	Optimum *Size      `json:"optimum,omitempty"`
	Runs    []FreshRun `json:"runs"`
	Err     string     `json:"error,omitempty"`
}

// Spread returns the best, median and worst ratio of the runs.
func (r *FreshRow) Spread() (best, med, worst float64, ok bool) {
	var xs []float64
	for _, x := range r.Runs {
		xs = append(xs, x.Ratio)
	}
	if len(xs) == 0 {
		return 0, 0, 0, false
	}
	sort.Float64s(xs)
	return xs[0], median(xs), xs[len(xs)-1], true
}

// FreshSummary is the study's targets' measurements over every run of
// every bug.
type FreshSummary struct {
	Runs         int     `json:"runs"`
	Median       float64 `json:"median"`
	Worst        float64 `json:"worst"`
	WithinBudget int     `json:"within_budget"`
	// Proved counts the results proved optimal over their own external
	// events (FreshRun.Proved).
	Proved int `json:"proved_optimal"`
	// MedianSmallest and WorstSmallest are the same over the smallest
	// known size of each bug: its proven optimum where a search proved
	// one (it may be below the best known size), else the best known.
	MedianSmallest float64 `json:"median_smallest,omitempty"`
	WorstSmallest  float64 `json:"worst_smallest,omitempty"`
}

// SummarizeFresh computes the summary of rows.
func SummarizeFresh(rows []FreshRow) FreshSummary {
	var s FreshSummary
	var xs, ys []float64
	for _, r := range rows {
		for _, x := range r.Runs {
			xs = append(xs, x.Ratio)
			s.Worst = max(s.Worst, x.Ratio)
			y := x.Ratio
			if x.OverOptimum > 0 {
				y = x.OverOptimum
			}
			ys = append(ys, y)
			s.WorstSmallest = max(s.WorstSmallest, y)
			if !x.HitBudget {
				s.WithinBudget++
			}
			if x.Proved {
				s.Proved++
			}
		}
	}
	s.Runs = len(xs)
	s.Median = median(xs)
	s.MedianSmallest = median(ys)
	return s
}

func (f *FreshConfig) withDefaults(workers int) FreshConfig {
	out := *f
	if out.N <= 0 {
		out.N = 5
	}
	if out.Budget <= 0 {
		out.Budget = time.Minute
	}
	if out.MaxSeeds <= 0 {
		out.MaxSeeds = 3000
	}
	if out.Workers <= 0 {
		out.Workers = workers
	}
	if out.Steps <= 0 {
		out.Steps = minimize.DefaultSteps
	}
	return out
}

// Invariant returns fingerprint with every member ID of members replaced
// by "*" (longest IDs first, whole words only), so that violations of one
// invariant by different members compare equal.
func Invariant(fingerprint string, members []record.ActorID) string {
	ids := make([]string, 0, len(members))
	for _, m := range members {
		ids = append(ids, string(m))
	}
	sort.Slice(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) })
	out := fingerprint
	for _, id := range ids {
		var b strings.Builder
		for off := 0; ; {
			i := strings.Index(out[off:], id)
			if i < 0 {
				b.WriteString(out[off:])
				break
			}
			i += off
			j := i + len(id)
			if (i == 0 || !isWord(out[i-1])) && (j == len(out) || !isWord(out[j])) {
				b.WriteString(out[off:i])
				b.WriteString("*")
			} else {
				b.WriteString(out[off:j])
			}
			off = j
		}
		out = b.String()
	}
	return out
}

func isWord(b byte) bool {
	return b == '_' || b == '-' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// BestKnown returns the smaller (deliveries plus externals, then
// deliveries) of dir/<bug>.reference.trace and dir/<bug>.min.trace, and
// which it is ("reference" or "shipped .min.trace").
func BestKnown(dir, bug string, cat *record.Catalog) (Size, string, error) {
	t, _, of, err := bestKnown(dir, bug, cat)
	if err != nil {
		return Size{}, "", err
	}
	return sizeOf(t), of, nil
}

// bestKnown is BestKnown's trace itself, and its system.
func bestKnown(dir, bug string, cat *record.Catalog) (*record.Trace, *record.System, string, error) {
	var best *record.Trace
	var sys *record.System
	var size Size
	of := ""
	for _, c := range []struct{ file, name string }{
		{bug + ".reference.trace", "reference"},
		{bug + ".min.trace", "shipped .min.trace"},
	} {
		t, s, err := record.ReadFile(filepath.Join(dir, c.file), cat)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, "", err
		}
		n := sizeOf(t)
		if best == nil || n.total() < size.total() || n.total() == size.total() && n.Deliveries < size.Deliveries {
			best, sys, size, of = t, s, n, c.name
		}
	}
	if best == nil {
		return nil, nil, "", fmt.Errorf("eval: neither %s.reference.trace nor %s.min.trace in %s", bug, bug, dir)
	}
	return best, sys, of, nil
}

func (s Size) total() int { return s.Deliveries + s.Externals }

// FreshSeeds runs the fresh-seed study: for each case, the seeds after the
// shipped one, in order, until N runs fail with the shipped violation's
// invariant after at least the case's MinDeliveries deliveries; each
// failing trace is minimized with the budget and checked by one exact
// replay. optimum gives the proven optimum of a bug, if any (nil: none).
func (c *Config) FreshSeeds(ctx context.Context, fc FreshConfig, optimum func(bug string) *Size, update func(FreshRow) error) ([]FreshRow, error) {
	f := fc.withDefaults(c.Workers)
	var rows []FreshRow
	for _, fcase := range f.Cases {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		row, err := c.freshBug(ctx, f, fcase, optimum)
		if err != nil {
			if ctx.Err() != nil {
				return rows, ctx.Err()
			}
			row = FreshRow{Bug: fcase.Bug, Err: err.Error()}
			c.Log("fresh %s: %v", fcase.Bug, err)
		}
		rows = append(rows, row)
		if update != nil {
			if err := update(row); err != nil {
				return rows, err
			}
		}
	}
	return rows, nil
}

// shippedInvariant returns the system of fc, the members its options give,
// and the invariant (see Invariant) that the bug's shipped trace breaks:
// what a fuzz run of fc must break to count.
func (c *Config) shippedInvariant(fc FreshCase) (*record.System, []record.ActorID, string, error) {
	sys, err := c.Catalog.Lookup(fc.System)
	if err != nil {
		return nil, nil, "", err
	}
	shipped, _, err := record.ReadFile(filepath.Join(c.TraceDir, fc.Bug+".trace"), c.Catalog)
	if err != nil {
		return nil, nil, "", err
	}
	if shipped.Header.Violation == nil {
		return nil, nil, "", fmt.Errorf("%s.trace records no violation", fc.Bug)
	}
	resolved, err := sys.Resolve(fc.Options)
	if err != nil {
		return nil, nil, "", err
	}
	members := sys.Members(resolved)
	return sys, members, Invariant(shipped.Header.Violation.Fingerprint, members), nil
}

func (c *Config) freshBug(ctx context.Context, f FreshConfig, fc FreshCase, optimum func(string) *Size) (FreshRow, error) {
	sys, members, invariant, err := c.shippedInvariant(fc)
	if err != nil {
		return FreshRow{}, err
	}
	row := FreshRow{Bug: fc.Bug, Invariant: invariant, ShippedSeed: fc.Search.Seed, FuzzArgs: fuzzArgs(fc)}
	if row.Best, row.BestOf, err = BestKnown(c.TraceDir, fc.Bug, c.Catalog); err != nil {
		return FreshRow{}, err
	}
	if optimum != nil {
		row.Optimum = optimum(fc.Bug)
	}
	next := fc.Search.Seed + 1
	if f.From != 0 {
		next = f.From
	}
	row.FirstSeed = next
	for len(row.Runs) < f.N && row.SeedsTried < f.MaxSeeds {
		t, runs, err := nextFresh(ctx, sys, fc, members, row.Invariant, next, f.MaxSeeds-row.SeedsTried)
		row.SeedsTried += runs
		if err != nil {
			return FreshRow{}, err
		}
		if t == nil {
			break
		}
		next = t.Header.Seed + 1
		if f.SaveDir != "" {
			path := filepath.Join(f.SaveDir, fmt.Sprintf("%s-%d.trace", fc.Bug, t.Header.Seed))
			if err := t.WriteFile(path); err != nil {
				return FreshRow{}, fmt.Errorf("saving seed %d: %w", t.Header.Seed, err)
			}
		}
		run, err := c.freshRun(ctx, f, sys, t, row)
		if err != nil {
			return FreshRow{}, fmt.Errorf("seed %d: %w", t.Header.Seed, err)
		}
		row.Runs = append(row.Runs, run)
	}
	if len(row.Runs) < f.N {
		return row, fmt.Errorf("only %d of %d failing traces with %s in %d seeds from %d",
			len(row.Runs), f.N, row.Invariant, row.SeedsTried, row.FirstSeed)
	}
	return row, nil
}

// nextFresh fuzzes fc from seed on, at most maxSeeds runs, and returns the
// first failing trace that breaks invariant (nil when none did) and the
// runs it tried.
func nextFresh(ctx context.Context, sys *record.System, fc FreshCase, members []record.ActorID, invariant string,
	seed uint64, maxSeeds int) (*record.Trace, int, error) {
	tried := 0
	for tried < maxSeeds {
		sc := fc.Search
		sc.Seed = seed
		sc.Runs = maxSeeds - tried
		t, runs, err := record.Search(ctx, sys, fc.Options, sc)
		tried += runs
		if err != nil {
			return nil, tried, fmt.Errorf("fuzz: %w", err)
		}
		if t == nil {
			return nil, tried, nil
		}
		if Invariant(t.Header.Violation.Fingerprint, members) == invariant {
			return t, tried, nil
		}
		seed = t.Header.Seed + 1
	}
	return nil, tried, nil
}

// FirstFresh returns the first fresh failing trace of fc, the one the
// fresh-seed study minimizes first: the first seed after the shipped one
// whose run breaks the shipped violation's invariant (within maxSeeds runs).
func (c *Config) FirstFresh(ctx context.Context, fc FreshCase, maxSeeds int) (*record.Trace, *record.System, error) {
	sys, members, invariant, err := c.shippedInvariant(fc)
	if err != nil {
		return nil, nil, err
	}
	t, tried, err := nextFresh(ctx, sys, fc, members, invariant, fc.Search.Seed+1, maxSeeds)
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, fmt.Errorf("no failing trace with %s in %d seeds after %d", invariant, tried, fc.Search.Seed)
	}
	return t, sys, nil
}

func (c *Config) freshRun(ctx context.Context, f FreshConfig, sys *record.System, t *record.Trace, row FreshRow) (FreshRun, error) {
	run := FreshRun{Seed: t.Header.Seed, Fingerprint: t.Header.Violation.Fingerprint, Initial: sizeOf(t)}
	c.Log("fresh %s: seed %d, %s, %s: minimizing (budget %s, -j %d)", row.Bug, run.Seed, run.Initial, run.Fingerprint, f.Budget, f.Workers)
	res, cpu, err := c.runMinimize(ctx, sys, t, minimize.Config{Budget: f.Budget, Strategy: "tfb", Workers: f.Workers, Steps: f.Steps})
	run.CPUSeconds = cpu.Seconds()
	if err != nil {
		return FreshRun{}, fmt.Errorf("minimize: %w", err)
	}
	if res.Interrupted {
		return FreshRun{}, context.Canceled
	}
	for _, s := range res.Stages {
		run.Seconds += s.Seconds
		run.Schedules += s.Schedules
		run.Steps += s.Steps
	}
	run.Result = sizeOf(res.Trace)
	run.Passes, run.AfterLast, run.Proved = res.Passes, AfterLast(res.Pace, run.Steps), res.Optimal
	run.HitBudget = run.Seconds >= 0.97*f.Budget.Seconds()
	rep, err := replay.Run(ctx, sys, res.Trace)
	if err != nil {
		return FreshRun{}, fmt.Errorf("replaying the result: %w", err)
	}
	if !rep.Reproduced {
		return FreshRun{}, errors.New("the minimized trace does not replay its violation")
	}
	run.Ratio = float64(run.Result.total()) / float64(max(row.Best.total(), 1))
	if row.Optimum != nil {
		run.OverOptimum = float64(run.Result.total()) / float64(max(row.Optimum.total(), 1))
	}
	proved := ""
	if run.Proved {
		proved = ", proved optimal over its external events"
	}
	c.Log("fresh %s: seed %d: %s in %.1fs (%.1f s CPU, %d schedules, %d steps), %.2fx the best known %s%s", row.Bug, run.Seed, run.Result,
		run.Seconds, run.CPUSeconds, run.Schedules, run.Steps, run.Ratio, row.Best, proved)
	return run, nil
}

// fuzzArgs renders a case as demi fuzz flags (without the seed).
func fuzzArgs(fc FreshCase) string {
	s := fc.Search
	mode := s.Mode
	if mode == nil {
		mode = record.Walk // record.Search's default; demi fuzz's is swarm
	}
	args := []string{"--system", fc.System, "--mode", mode.Name()}
	keys := make([]string, 0, len(fc.Options))
	for k := range fc.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fc.Options[k] == "true" {
			args = append(args, "--bug", k)
		} else {
			args = append(args, "--opt", k+"="+fc.Options[k])
		}
	}
	args = append(args, "--max-steps", fmt.Sprint(s.MaxSteps), "--externals", fmt.Sprint(s.MaxExternals),
		"--timer-prob", fmt.Sprint(s.TimerProb), "--check-every", fmt.Sprint(s.CheckEvery),
		"--min-deliveries", fmt.Sprint(s.MinDeliveries))
	if s.ExternalProb > 0 {
		args = append(args, "--external-prob", fmt.Sprint(s.ExternalProb))
	}
	return strings.Join(args, " ")
}

// fresh runs the fresh-seed study into rep, calling update after each bug.
func (c *Config) fresh(ctx context.Context, rep *Report, update func() error) error {
	f := c.Fresh.withDefaults(c.Workers)
	rep.Fresh = nil
	rep.FreshGenerated = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	rep.FreshBudget, rep.FreshWorkers, rep.FreshSteps, rep.FreshFrom, rep.FreshGOGC = f.Budget.String(), f.Workers, f.Steps, f.From, collector.Short
	load0 := loadAverage()
	rep.FreshLoad = load0
	optimum := func(bug string) *Size { return rep.ProvenOptimum(bug) }
	_, err := c.FreshSeeds(ctx, f, optimum, func(r FreshRow) error {
		rep.Fresh = append(rep.Fresh, r)
		rep.FreshSummary = SummarizeFresh(rep.Fresh)
		if load0 != "" {
			rep.FreshLoad = load0 + " → " + loadAverage()
		}
		return update()
	})
	return err
}

// RunStudies runs only the optimum and fresh-seed studies (those
// configured) and adds them to base (a report read with ReadJSON, whose
// other sections are kept as they were measured), or to a new report when
// base is nil.
func RunStudies(ctx context.Context, cfg Config, base *Report) (*Report, error) {
	if cfg.Catalog == nil || cfg.Fresh == nil && cfg.Optimum == nil && cfg.Long == nil && cfg.DPOR == nil && cfg.Finding == nil {
		return nil, errors.New("eval: no study to run (fresh seeds, optimum, long traces, DPOR or finding)")
	}
	c := cfg.withDefaults()
	rep := base
	if rep == nil {
		rep = &Report{Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
			Machine: Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
			Budget:  c.Budget.String(), Workers: c.Workers, Citation: PaperCitation}
	}
	update := func() error {
		if c.OnUpdate != nil {
			return c.OnUpdate(rep)
		}
		return nil
	}
	bugs := c.Bugs
	if len(bugs) == 0 {
		var err error
		if bugs, err = FindBugs(c.TraceDir); err != nil {
			return rep, err
		}
	}
	if err := c.studies(ctx, rep, bugs, update); err != nil {
		return rep, err
	}
	return rep, update()
}

// studies runs the optimum study, then the fresh-seed, long-trace and
// DPOR studies, as configured.
func (c *Config) studies(ctx context.Context, rep *Report, bugs []string, update func() error) error {
	if c.Optimum != nil {
		if err := c.optimum(ctx, rep, bugs, update); err != nil {
			return err
		}
	}
	if c.Fresh != nil {
		if err := c.fresh(ctx, rep, update); err != nil {
			return err
		}
	}
	if c.Long != nil {
		if err := c.longStudy(ctx, rep, update); err != nil {
			return err
		}
	}
	if c.DPOR != nil {
		if err := c.dporStudy(ctx, rep, bugs, update); err != nil {
			return err
		}
	}
	if c.Finding != nil {
		f, err := RunFinding(ctx, c.Catalog, *c.Finding, c.ImgDir, c.ImgLink, c.Log, func(f *FindingReport) error {
			rep.Finding = f
			return update()
		})
		if f != nil {
			rep.Finding = f
		}
		return err
	}
	return nil
}

// FreshWithOptima returns the fresh-seed rows with each bug's proven
// optimum taken from the report's optimum study, where it has one (the two
// studies may have been run separately and merged), and every run's ratio
// over it. rep is not changed.
func (rep *Report) FreshWithOptima() []FreshRow {
	rows := slices.Clone(rep.Fresh)
	for i := range rows {
		r := &rows[i]
		if p := rep.ProvenOptimum(r.Bug); p != nil {
			r.Optimum = p
		}
		if r.Optimum == nil {
			continue
		}
		r.Runs = slices.Clone(r.Runs)
		for j := range r.Runs {
			r.Runs[j].OverOptimum = float64(r.Runs[j].Result.total()) / float64(max(r.Optimum.total(), 1))
		}
	}
	return rows
}

// ProvenOptimum returns the size the optimum study proved smallest for
// bug, or nil.
func (rep *Report) ProvenOptimum(bug string) *Size {
	for i := range rep.Optimum {
		if r := &rep.Optimum[i]; r.Bug == bug {
			return r.Proven()
		}
	}
	return nil
}
