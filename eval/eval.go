// Package eval is demi's evaluation harness: it reproduces the DEMi paper's
// Table 1 (sizes after each minimization stage), Table 2 (runtime and
// schedules executed) and Figure 2 (minimization pace) on the example bugs,
// beside the paper's own numbers, an exhaustive search for the optimum, a
// peer (pgregory.net/rapid's state-machine testing and shrinking) and a
// scaling study.
//
// Every number comes from the same code paths as the command line: the
// sizes of a trace are its header's counts (what `demi show --json`
// prints), minimization is minimize.Run with the configuration `demi
// minimize` uses, and the columns map onto the paper's as follows:
//
//   - Initial: the shipped failing trace, examples/traces/<bug>.trace.
//   - Provenance: after the "provenance" stage.
//   - STSSched: after delta debugging of the external events with the
//     single STSSched schedule per subsequence (stage "ddmin-externals"),
//     the paper's prior-work baseline.
//   - TFB: the final result of the full pipeline (strategy tfb).
//   - Reference: the smallest known reproducer,
//     examples/traces/<bug>.reference.trace (the paper's "Optimal" column was
//     the smallest execution its authors could build by hand, which is what
//     a reference trace is).
//   - NoDiverge: the final result of a separate run with strategy
//     nodiverge, which never explores a schedule that leaves the original's
//     state transitions.
//
// Table 2's STSSched time is the time and schedules of the paper's stages
// (initial, provenance, ddmin-externals) up to and including
// ddmin-externals; its TFB time is that of every other stage, also of
// a stage of demi's that runs before ddmin-externals (the beam's second
// start, which runs right after provenance).
package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/demi-project/demi/internal/collector"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/peer/rapidpeer"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// Size is the size of a schedule as the paper writes it: deliveries
// (internal events) and external events.
type Size struct {
	Deliveries int `json:"deliveries"`
	Externals  int `json:"externals"`
}

// String renders the size as the paper's tables do: "23 (E:8)".
func (s Size) String() string { return fmt.Sprintf("%d (E:%d)", s.Deliveries, s.Externals) }

func sizeOf(t *record.Trace) Size {
	return Size{Deliveries: t.Header.Deliveries, Externals: t.Header.Externals}
}

// Config controls an evaluation run.
type Config struct {
	// Catalog knows the systems of the traces.
	Catalog *record.Catalog
	// TraceDir holds <bug>.trace and <bug>.reference.trace files.
	TraceDir string
	// Bugs restricts the run to these bugs (default: every failing trace in
	// TraceDir).
	Bugs []string
	// Budget is the time budget of each minimization (default 2m).
	Budget time.Duration
	// Workers is minimize's -j (default: all cores).
	Workers int
	// PeerBudget bounds rapid's search and, separately, its shrinking
	// (default 1m each); negative skips the peer.
	PeerBudget time.Duration
	// OptimalBudget bounds the exhaustive search on each reference trace
	// (default 1m); negative skips it.
	OptimalBudget time.Duration
	// NoDiverge runs the nodiverge strategy too (the NoDiverge column).
	NoDiverge bool
	// Replays is how many times each minimized trace is replayed to check
	// it (default 3).
	Replays int
	// Scaling, when set, runs the scaling study.
	Scaling *ScalingConfig
	// Fresh, when set, runs the fresh-seed study (freshseed.go).
	Fresh *FreshConfig
	// Optimum, when set, runs the optimum study (optimum.go), before the
	// fresh-seed study, which reports against its proven optima.
	Optimum *OptimumConfig
	// Long, when set, runs the long-trace study (longtrace.go).
	Long *LongConfig
	// DPOR, when set, runs the DPOR study (dporstudy.go).
	DPOR *DPORConfig
	// Finding, when set, runs the time-to-bug study (finding.go).
	Finding *FindingConfig
	// ImgDir, when set, receives the pace plots (PNG); ImgLink is the path
	// the markdown uses for ImgDir.
	ImgDir, ImgLink string
	// Log receives progress lines.
	Log func(format string, args ...any)
	// OnUpdate is called with the report after every bug and stage of the
	// run, so that partial results can be written as they come.
	OnUpdate func(*Report) error
	// Isolate runs each minimization the studies time in a fresh process
	// of this executable, so that its seconds are those of a demi minimize
	// process (runMinimize). The executable must serve the request when
	// ChildEnv is set (ServeMinimize).
	Isolate bool
}

// ScalingConfig is the scaling study: failing traces of growing length of
// one bug, each minimized with each worker count.
type ScalingConfig struct {
	Bug     string        // whose options the traces are made with (if its trace is missing: the first bug evaluated)
	Lengths []int         // target deliveries (default 500, 1000, 2000, 4000)
	Workers []int         // default 1 and 2
	Budget  time.Duration // per minimization (default 1m)
	Runs    int           // fuzz seeds tried per length (default 400)
	Seed    uint64        // first fuzz seed (default 1)
}

// Report is everything an evaluation run measured.
type Report struct {
	Generated string  `json:"generated"`
	Machine   Machine `json:"machine"`
	Budget    string  `json:"budget"`
	// Command is the demi-eval command line that measured the report, with
	// every flag it was given ("" in reports written before it was kept).
	Command string `json:"command,omitempty"`
	// Commit is the source commit of the run that measured the report
	// (git's short hash, marked when the work tree had changes; "" when
	// unknown). StudiesCommit is the commit of a later run that measured
	// only some studies (--studies) into the same report, when it differs.
	Commit        string `json:"commit,omitempty"`
	StudiesCommit string `json:"studies_commit,omitempty"`
	Workers       int    `json:"workers"`
	// GOGC is the collector setting Table 1 and 2 minimized under
	// (runMinimize; 0 in reports written before it was kept: Go's default);
	// FreshGOGC the fresh-seed study's.
	GOGC      int `json:"gogc,omitempty"`
	FreshGOGC int `json:"fresh_gogc,omitempty"`
	// PeerBudget is rapid's budget to find, and again to shrink.
	PeerBudget string       `json:"peer_budget,omitempty"`
	Rows       []Row        `json:"rows"`
	Scaling    []ScalingRow `json:"scaling,omitempty"`
	// ScalingPlot is the markdown link to the scaling plot, if drawn.
	ScalingPlot string        `json:"scaling_plot,omitempty"`
	Paper       []PaperRow    `json:"paper"`
	Citation    string        `json:"paper_citation"`
	Summary     Summary       `json:"summary"`
	Scale       ScalingConfig `json:"scale"`
	// Fresh is the fresh-seed study (freshseed.go), measured when
	// FreshGenerated says, with FreshBudget per minimization.
	Fresh          []FreshRow   `json:"fresh,omitempty"`
	FreshSummary   FreshSummary `json:"fresh_summary"`
	FreshGenerated string       `json:"fresh_generated,omitempty"`
	FreshBudget    string       `json:"fresh_budget,omitempty"`
	// FreshFrom is FreshConfig.From: 0 when each bug's seeds start after
	// its shipped seed.
	FreshFrom    uint64 `json:"fresh_from,omitempty"`
	FreshWorkers int    `json:"fresh_workers,omitempty"`
	// FreshSteps is each minimization's step budget (minimize's default
	// unless FreshConfig.Steps said otherwise); FreshLoad is the machine's
	// load average when the study started and ended.
	FreshSteps int64  `json:"fresh_steps,omitempty"`
	FreshLoad  string `json:"fresh_load,omitempty"`
	// Optimum is the optimum study (optimum.go).
	Optimum          []OptimumRow `json:"optimum,omitempty"`
	OptimumGenerated string       `json:"optimum_generated,omitempty"`
	OptimumBudget    string       `json:"optimum_budget,omitempty"`
	// OptimumWorkers is the walkers of each search (optimal.Config.Workers)
	// and OptimumLoad the machine's load average at its start and end.
	OptimumWorkers int    `json:"optimum_workers,omitempty"`
	OptimumLoad    string `json:"optimum_load,omitempty"`
	// Finding is the time-to-bug study (finding.go).
	Finding *FindingReport `json:"finding,omitempty"`
	// Long is the long-trace study (longtrace.go).
	Long          []LongRow `json:"long,omitempty"`
	LongGenerated string    `json:"long_generated,omitempty"`
	LongBudget    string    `json:"long_budget,omitempty"`
	LongWorkers   int       `json:"long_workers,omitempty"`
	// DPOR is the DPOR study (dporstudy.go), measured when DPORGenerated
	// says, with DPORSchedules per TFB check and DPORSteps per pass.
	DPOR          []DPORRow `json:"dpor,omitempty"`
	DPORGenerated string    `json:"dpor_generated,omitempty"`
	DPORSchedules int       `json:"dpor_schedules,omitempty"`
	DPORSteps     int64     `json:"dpor_steps,omitempty"`
	// Notes is free text (the analysis) appended to the markdown.
	Notes string `json:"-"`
}

// Machine describes where the numbers were measured.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// Row is one bug's results.
type Row struct {
	Bug         string `json:"bug"`
	Trace       string `json:"trace"`
	System      string `json:"system"`
	Fingerprint string `json:"fingerprint"`

	Initial    Size  `json:"initial"`
	Provenance Size  `json:"provenance"`
	STSSched   Size  `json:"sts_sched"`
	TFB        Size  `json:"tfb"`
	Reference  *Size `json:"reference,omitempty"`
	NoDiverge  *Size `json:"no_diverge,omitempty"`

	STSSeconds   float64 `json:"sts_seconds"`
	STSSchedules int64   `json:"sts_schedules"`
	TFBSeconds   float64 `json:"tfb_seconds"`
	TFBSchedules int64   `json:"tfb_schedules"`
	// HitBudget reports that the tfb run used its whole budget.
	HitBudget bool `json:"hit_budget"`
	// Proved: the tfb run's optimum pass proved its result optimal over
	// its external events (minimize.Result.Optimal).
	Proved bool `json:"proved_optimal,omitempty"`
	// Replayed counts the exact replays of the result that reproduced the
	// violation, out of Replays.
	Replayed int `json:"replayed"`
	Replays  int `json:"replays"`

	NoDivergeSeconds   float64 `json:"no_diverge_seconds,omitempty"`
	NoDivergeSchedules int64   `json:"no_diverge_schedules,omitempty"`

	Stages []minimize.StageStats `json:"stages"`
	Pace   []minimize.PacePoint  `json:"pace"`
	// Passes sums the tfb run's stage rows up per pass (minimize.Result).
	Passes []minimize.PassStats `json:"passes,omitempty"`
	Plot   string               `json:"plot,omitempty"`

	Optimal *OptimalOutcome   `json:"optimal,omitempty"`
	Peer    *rapidpeer.Result `json:"peer,omitempty"`
	// PeerSeconds is the peer's total time (search and shrinking).
	PeerSeconds float64 `json:"peer_seconds,omitempty"`

	// Err is set when this bug could not be evaluated.
	Err string `json:"error,omitempty"`
}

// OptimalOutcome is the exhaustive search's verdict on the smallest known
// reproducer (the reference trace or demi's result): the fewest deliveries
// with which its external events, in their order, reproduce the violation.
type OptimalOutcome struct {
	// Of names the trace searched ("reference" or "TFB result"); Input is
	// its size.
	Of    string `json:"of"`
	Input Size   `json:"input"`
	// Found is the smallest schedule found with the reference's external
	// events, if any within the bound.
	Found *Size `json:"found,omitempty"`
	// Exhausted reports that the search finished: Found is the optimum, or
	// there is none within Bound.
	Exhausted bool `json:"exhausted"`
	// AllExternals reports that the search also covered every subset of
	// the external events, so an exhausted search's Found is the optimum
	// of the bug, not only of these external events.
	AllExternals bool    `json:"all_externals,omitempty"`
	Bound        int     `json:"bound"`
	Searched     int     `json:"searched"`
	States       int     `json:"states"`
	Seconds      float64 `json:"seconds"`
	// Err is why the search gave no verdict, if it gave none.
	Err string `json:"error,omitempty"`
}

// TotalSeconds is demi's whole tfb minimization time.
func (r *Row) TotalSeconds() float64 { return r.STSSeconds + r.TFBSeconds }

// SchedulesPerSecond is demi's rate over the whole tfb minimization.
func (r *Row) SchedulesPerSecond() float64 {
	if t := r.TotalSeconds(); t > 0 {
		return float64(r.STSSchedules+r.TFBSchedules) / t
	}
	return 0
}

// Ratio returns a/b for deliveries, and whether it is defined.
func Ratio(a, b int) (float64, bool) {
	if b <= 0 {
		return 0, false
	}
	return float64(a) / float64(b), true
}

// TFBOverReference is the ratio of demi's result to the reference.
func (r *Row) TFBOverReference() (float64, bool) {
	if r.Reference == nil || r.Err != "" {
		return 0, false
	}
	return Ratio(r.TFB.Deliveries, r.Reference.Deliveries)
}

// STSOverTFB is how much smaller TFB is than the STSSched baseline.
func (r *Row) STSOverTFB() (float64, bool) {
	if r.Err != "" {
		return 0, false
	}
	return Ratio(r.STSSched.Deliveries, r.TFB.Deliveries)
}

// Summary holds the targets' measurements.
type Summary struct {
	Bugs             int     `json:"bugs"`
	MedianTFBOverRef float64 `json:"median_tfb_over_reference"`
	WorstTFBOverRef  float64 `json:"worst_tfb_over_reference"`
	WorstBug         string  `json:"worst_bug,omitempty"`
	RatioBugs        int     `json:"ratio_bugs"`
	WithinBudget     int     `json:"within_budget"`
	PeerCompared     int     `json:"peer_compared"`
	DemiNoLarger     int     `json:"demi_no_larger"`
	PeerNotFound     int     `json:"peer_not_found"`
}

// Summarize computes the summary of rows.
func Summarize(rows []Row) Summary {
	var s Summary
	var ratios []float64
	for i := range rows {
		r := &rows[i]
		if r.Err != "" {
			continue
		}
		s.Bugs++
		if x, ok := r.TFBOverReference(); ok {
			ratios = append(ratios, x)
			if x > s.WorstTFBOverRef {
				s.WorstTFBOverRef, s.WorstBug = x, r.Bug
			}
		}
		if !r.HitBudget {
			s.WithinBudget++
		}
		if r.Peer != nil {
			if r.Peer.Found {
				s.PeerCompared++
				if r.TFB.Deliveries <= r.Peer.Deliveries {
					s.DemiNoLarger++
				}
			} else {
				s.PeerNotFound++
			}
		}
	}
	s.RatioBugs = len(ratios)
	s.MedianTFBOverRef = median(ratios)
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// FromStages maps minimize's stage rows onto the paper's columns:
// Provenance, STSSched (after ddmin-externals) and TFB (final), with the
// time and schedules of the STSSched part (the paper's stages up to and
// including ddmin-externals) and of the TFB part (every other stage: the
// later ones, and demi's own stages before ddmin-externals, such as the
// beam's second start).
func FromStages(stages []minimize.StageStats) (prov, sts, final Size, stsSec float64, stsSched int64, tfbSec float64, tfbSched int64) {
	cut := -1
	for i, s := range stages {
		if s.Name == "ddmin-externals" {
			cut = i
		}
	}
	if cut < 0 { // strategy without the stage: STSSched is after provenance
		for i, s := range stages {
			if s.Name == "provenance" || s.Name == "initial" {
				cut = i
			}
		}
	}
	for i, s := range stages {
		sz := Size{Deliveries: s.Deliveries, Externals: s.Externals}
		switch s.Name {
		case "provenance":
			prov = sz
		}
		if i == cut {
			sts = sz
		}
		if i <= cut && paperStage(s.Name) {
			stsSec += s.Seconds
			stsSched += s.Schedules
		} else {
			tfbSec += s.Seconds
			tfbSched += s.Schedules
		}
		final = sz
	}
	return
}

// paperStage reports whether the stage named name is one of the paper's
// STSSched part.
func paperStage(name string) bool {
	switch name {
	case "initial", "provenance", "ddmin-externals":
		return true
	}
	return false
}

func (c *Config) withDefaults() Config {
	out := *c
	if out.Budget <= 0 {
		out.Budget = 2 * time.Minute
	}
	if out.Workers <= 0 {
		out.Workers = runtime.NumCPU()
	}
	if out.PeerBudget == 0 {
		out.PeerBudget = time.Minute
	}
	if out.OptimalBudget == 0 {
		out.OptimalBudget = time.Minute
	}
	if out.Replays <= 0 {
		out.Replays = 3
	}
	if out.Log == nil {
		out.Log = func(string, ...any) {}
	}
	return out
}

// FindBugs lists the bugs with a failing trace in dir: every <bug>.trace
// that is not a .reference.trace or a .min.trace, sorted.
func FindBugs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var bugs []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".trace") || strings.HasSuffix(n, ".reference.trace") || strings.HasSuffix(n, ".min.trace") {
			continue
		}
		bugs = append(bugs, strings.TrimSuffix(n, ".trace"))
	}
	sort.Slice(bugs, func(i, j int) bool {
		return bugOrder(bugs[i]) < bugOrder(bugs[j]) || bugOrder(bugs[i]) == bugOrder(bugs[j]) && bugs[i] < bugs[j]
	})
	return bugs, nil
}

// bugOrder puts the paper's bugs in the paper's order, others after.
func bugOrder(bug string) int {
	for i, r := range Paper() {
		if r.Bug == bug {
			return i
		}
	}
	return len(Paper())
}

// Run evaluates every bug and, when configured, the scaling study.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Catalog == nil {
		return nil, errors.New("eval: no catalog of systems")
	}
	c := cfg.withDefaults()
	bugs := c.Bugs
	if len(bugs) == 0 {
		var err error
		if bugs, err = FindBugs(c.TraceDir); err != nil {
			return nil, err
		}
		if len(bugs) == 0 {
			return nil, fmt.Errorf("eval: no failing traces (*.trace) in %s", c.TraceDir)
		}
	}
	for _, b := range bugs {
		if _, err := os.Stat(filepath.Join(c.TraceDir, b+".trace")); err != nil {
			return nil, fmt.Errorf("eval: bug %s: %w", b, err)
		}
	}
	rep := &Report{
		Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Machine:   Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
		Budget:    c.Budget.String(), Workers: c.Workers, GOGC: collector.Short, PeerBudget: c.PeerBudget.String(),
		Citation: PaperCitation,
	}
	for _, b := range bugs {
		if p, ok := PaperFor(b); ok {
			rep.Paper = append(rep.Paper, p)
		}
	}
	update := func() error {
		rep.Summary = Summarize(rep.Rows)
		if c.OnUpdate != nil {
			return c.OnUpdate(rep)
		}
		return nil
	}
	for _, b := range bugs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		row, err := c.evalBug(ctx, b)
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			row = Row{Bug: b, Err: err.Error()}
			c.Log("%s: %v", b, err)
		}
		rep.Rows = append(rep.Rows, row)
		if err := update(); err != nil {
			return rep, err
		}
	}
	if c.Scaling != nil {
		rep.Scale = *c.Scaling
		err := c.scaling(ctx, rep, update)
		if err != nil {
			return rep, err
		}
	}
	if err := c.studies(ctx, rep, bugs, update); err != nil {
		return rep, err
	}
	return rep, update()
}

func (c *Config) evalBug(ctx context.Context, bug string) (Row, error) {
	path := filepath.Join(c.TraceDir, bug+".trace")
	t, sys, err := record.ReadFile(path, c.Catalog)
	if err != nil {
		return Row{}, err
	}
	if t.Header.Violation == nil {
		return Row{}, fmt.Errorf("%s records no violation", path)
	}
	row := Row{Bug: bug, Trace: path, System: sys.Name, Fingerprint: t.Header.Violation.Fingerprint,
		Initial: sizeOf(t), Replays: c.Replays}
	refPath := filepath.Join(c.TraceDir, bug+".reference.trace")
	var ref *record.Trace
	if _, err := os.Stat(refPath); err == nil {
		ref, _, err = record.ReadFile(refPath, c.Catalog)
		if err != nil {
			return Row{}, err
		}
		s := sizeOf(ref)
		row.Reference = &s
	}

	c.Log("%s: minimizing %s (strategy tfb, budget %s, -j %d)", bug, row.Initial, c.Budget, c.Workers)
	res, _, err := c.runMinimize(ctx, sys, t, minimize.Config{Budget: c.Budget, Strategy: "tfb", Workers: c.Workers})
	if err != nil {
		return Row{}, fmt.Errorf("minimize: %w", err)
	}
	if res.Interrupted {
		return Row{}, context.Canceled
	}
	row.Stages, row.Pace, row.Passes = res.Stages, res.Pace, res.Passes
	row.Provenance, row.STSSched, row.TFB, row.STSSeconds, row.STSSchedules, row.TFBSeconds, row.TFBSchedules = FromStages(res.Stages)
	row.TFB, row.Proved = sizeOf(res.Trace), res.Optimal
	row.HitBudget = row.TotalSeconds() >= 0.97*c.Budget.Seconds()
	reps, err := replay.Repeat(ctx, sys, res.Trace, c.Replays)
	if err != nil {
		return Row{}, fmt.Errorf("replaying the result: %w", err)
	}
	for _, r := range reps {
		if r.Reproduced {
			row.Replayed++
		}
	}
	c.Log("%s: TFB %s in %.1fs (%d schedules), replayed %d/%d", bug, row.TFB, row.TotalSeconds(),
		row.STSSchedules+row.TFBSchedules, row.Replayed, row.Replays)

	if c.NoDiverge {
		nd, _, err := c.runMinimize(ctx, sys, t, minimize.Config{Budget: c.Budget, Strategy: "nodiverge", Workers: c.Workers})
		if err != nil {
			return Row{}, fmt.Errorf("minimize (nodiverge): %w", err)
		}
		if nd.Interrupted {
			return Row{}, context.Canceled
		}
		s := sizeOf(nd.Trace)
		row.NoDiverge = &s
		for _, st := range nd.Stages {
			row.NoDivergeSeconds += st.Seconds
			row.NoDivergeSchedules += st.Schedules
		}
		c.Log("%s: NoDiverge %s in %.1fs", bug, s, row.NoDivergeSeconds)
	}

	if c.OptimalBudget > 0 {
		// Search below the smallest reproducer known: demi's result or the
		// reference, whichever has fewer deliveries.
		target, of := res.Trace, "TFB result"
		if ref != nil && ref.Header.Deliveries < target.Header.Deliveries {
			target, of = ref, "reference"
		}
		octx, cancel := context.WithTimeout(ctx, c.OptimalBudget)
		start := time.Now()
		o, err := optimal.Search(octx, sys, target, optimal.Config{MaxDeliveries: target.Header.Deliveries})
		cancel()
		if ctx.Err() != nil {
			return Row{}, ctx.Err()
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			// The budget ran out before the search covered any level.
			row.Optimal = &OptimalOutcome{Of: of, Input: sizeOf(target), Bound: target.Header.Deliveries, Searched: -1,
				Seconds: time.Since(start).Seconds()}
		case err != nil:
			// The search gives no verdict (a system whose runs cannot be
			// forked, a budget spent before the first level): the row
			// keeps what was measured and says why.
			row.Optimal = &OptimalOutcome{Of: of, Input: sizeOf(target), Bound: target.Header.Deliveries, Searched: -1,
				Seconds: time.Since(start).Seconds(), Err: err.Error()}
		default:
			row.Optimal = &OptimalOutcome{Of: of, Input: sizeOf(target), Exhausted: o.Exhausted, Bound: target.Header.Deliveries,
				Searched: o.Searched, States: o.States, Seconds: o.Seconds}
			if o.Trace != nil {
				row.Optimal.Found = &Size{Deliveries: o.Deliveries, Externals: o.Externals}
			}
		}
		c.Log("%s: optimal search on the %s: %s", bug, of, row.Optimal.Verdict())
	}

	if c.PeerBudget > 0 {
		c.Log("%s: rapid peer (budget %s to find, %s to shrink)", bug, c.PeerBudget, c.PeerBudget)
		p, err := rapidpeer.Run(ctx, sys, rapidpeer.Config{Options: t.Header.OptionMap(), Seed: t.Header.Seed,
			Fingerprint: row.Fingerprint, Budget: c.PeerBudget, ShrinkBudget: c.PeerBudget})
		if err != nil {
			if ctx.Err() != nil {
				return Row{}, ctx.Err()
			}
			return Row{}, fmt.Errorf("rapid peer: %w", err)
		}
		row.Peer = p
		row.PeerSeconds = p.FindSeconds + p.ShrinkSeconds
		if p.Found {
			c.Log("%s: rapid found %d deliveries after %d cases, shrunk to %d (%.1fs)", bug, p.FirstDeliveries, p.Cases, p.Deliveries, row.PeerSeconds)
		} else {
			c.Log("%s: rapid found no violation in %d cases (%.1fs)", bug, p.Cases, row.PeerSeconds)
		}
	}

	if c.ImgDir != "" && len(row.Pace) > 0 {
		name := bug + "-pace.png"
		if err := PlotPace(filepath.Join(c.ImgDir, name), bug, row.Pace); err != nil {
			return Row{}, err
		}
		row.Plot = filepath.ToSlash(filepath.Join(c.ImgLink, name))
	}
	return row, nil
}

// Verdict says in words what the search found about its input.
func (o *OptimalOutcome) Verdict() string {
	switch {
	case o.Err != "":
		return "no verdict: " + o.Err
	case o.Found != nil && o.Found.Deliveries >= o.Input.Deliveries:
		return fmt.Sprintf("optimal for its external events: no schedule with fewer than %d deliveries", o.Input.Deliveries)
	case o.Found != nil:
		return fmt.Sprintf("smaller schedule found for its external events: %s", o.Found)
	case o.Exhausted:
		return fmt.Sprintf("no schedule of its external events with at most %d deliveries reproduces it", o.Bound)
	case o.Searched >= 0:
		return fmt.Sprintf("not finished in %.0fs: at least %d deliveries needed with its external events (no schedule with %d or fewer)", o.Seconds, o.Searched+1, o.Searched)
	default:
		return fmt.Sprintf("not finished in %.0fs", o.Seconds)
	}
}
