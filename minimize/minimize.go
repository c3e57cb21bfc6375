// Package minimize turns a failing trace into a minimal causal sequence: a trace that still triggers the same
// violation (same violation fingerprint) with as few external events, deliveries and message contents as can be found
// within a step budget: the DEMi paper's §3 and Appendix A, and more (docs/minimization.md says how and why).
//
// Every candidate trace is checked by running it (package dpor), so every best trace is exact and replayable. The
// input is replayed exactly first (initial; on long traces a short window of it, window.go) and the result last
// (final). In between, one driver (driver.go) runs the passes of one table (passes.go) in four tiers: removals take
// events away, moves change the route and descend from there, searches look further, cleanup runs at the end (a trace
// it reorders is a new start for the removals and moves). The removals run to a fixpoint, then the moves until one
// helps, then the searches; any success goes back to the removals:
//
//   - provenance (removal): deliveries outside the violation's causal past.
//   - ddmin-externals (removal): delta debugging over the external events.
//   - ddmin-externals-wild (removal): the same, every delivery a wildcard.
//   - clock-clusters (removal; needs record.Clocked): one clock's deliveries.
//   - ddmin-internals (removal): delta debugging over the deliveries.
//   - fifo-internals (removal): the last delivery of each queue.
//   - shrink-contents (removal): components of external messages.
//   - one-at-a-time (removal): every causal cone, delivery and external; pairs on short traces.
//   - gather (move; needs record.Symmetry): a round takes a later message.
//   - retarget (move): events readdressed, reordered, given other contents, replaced by a timer, moved or hoisted earlier.
//   - inject (move; needs record.System.Injections): an offered event.
//   - add-event (move; needs record.System.Injections): one sending nothing.
//   - beam (search): the descent again from other starts, the trace their result replaced, and start results the removals cannot reach.
//   - shrink-search (search; needs optimal.Forks): the exact search of edited prefixes.
//   - suffix-search (search; needs optimal.Forks): the exact search from cuts, later externals applied or left out.
//   - late-start (search; needs optimal.Forks): deeper, the actor whose (re)start shows the violation, or another it moves to, started late.
//   - optimum (search; needs optimal.Forks): the exact search of every subsequence of the externals, given up if it can't finish.
//   - round-form (cleanup; needs record.Rounded): lockstep rounds.
//
// Work is counted in steps (one event of one schedule a check runs), never in time: Config.Steps
// bounds all of it, each pass call may use its share of what remains (the beam's other member gets
// one more call with twice it before the run ends), and the run stops on stall (driver.go), so
// the result depends on the input and the step budget alone, not on Workers or load (ExampleRun).
package minimize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// DefaultStepsFor is the step budget of t when Config.Steps is 0: DefaultSteps, plus 1,000 per delivery on traces of 5,000 or more.
func DefaultStepsFor(t *record.Trace) int64 {
	if d := t.Header.Deliveries; d >= longTrace {
		return DefaultSteps + longTraceSteps*int64(d)
	}
	return DefaultSteps
}

// Config controls a minimization.
type Config struct {
	Budget       time.Duration    // wall-clock budget, a hard outer cap (0 = DefaultBudget)
	Steps        int64            // the work budget in steps (0 = DefaultStepsFor): the result depends only on the input and Steps unless Budget runs out first
	Strategy     string           // "tfb" (default, full pipeline), "sts" (stop after STSSched/ddmin), "nodiverge"
	Workers      int              // parallel candidate checks; 0 = runtime.NumCPU(), at most 4 per CPU; the result does not depend on it
	Progress     func(Progress)   // optional, called periodically and at every stage change
	Fingerprint  fingerprint.Func // optional user message fingerprint
	MaxSchedules int              // bounds the schedules of one TFB check (0 = 16)
	Skip         []string         // passes to leave out (names from Passes), for ablation
	TFBScale     int              // the deliveries up to which a check gets all MaxSchedules, proportionally fewer beyond (0 = 100)
	fullChecks   bool             // no cache (cache.go): the same results, slower; tests compare
	patchTable   func([]pass)     // tests: changes the pass table before the run
}

// Progress is a snapshot of a running minimization.
type Progress struct {
	Stage                 string
	Deliveries, Externals int
	Schedules             int64
	Elapsed, Budget       time.Duration
}

// StageStats is the state after one stage.
type StageStats struct {
	Name       string  `json:"name"`
	Deliveries int     `json:"deliveries"`
	Externals  int     `json:"externals"`
	Schedules  int64   `json:"schedules"`
	Steps      int64   `json:"steps,omitempty"` // the stage's work (the steps a sequential scan runs)
	Seconds    float64 `json:"seconds"`
}

// PacePoint is the best size after an improvement, against the schedules executed so far (the paper's Figure 2).
type PacePoint struct {
	Schedules  int64 `json:"schedules"`
	Steps      int64 `json:"steps"` // the work done when the improvement was found
	Deliveries int   `json:"deliveries"`
	Externals  int   `json:"externals"`
}

// Result is the outcome of Run.
type Result struct {
	Trace       *record.Trace // the best trace: exact, replayable, of the input's fingerprint
	Stages      []StageStats  // one row per stage, from StageInitial to StageFinal
	Final       StageStats    // the last row of Stages
	Passes      []PassStats   // the stage rows summed up per pass, in the pass table's order
	Pace        []PacePoint   // the best size after each improvement
	Interrupted bool          // ctx was cancelled; Trace is the best so far
	Failures    []string      // the pass calls that failed (an internal error: please report it), each pass then left out for the rest of the run
	OutOfTime   bool          // Config.Budget ended the run before the step budget did; a faster machine or a larger budget may do better
	// Optimal: the optimum pass proved Trace optimal over its external events: no subsequence of them, with any
	// schedule of the deliveries they enable, reproduces the violation with fewer deliveries plus externals
	// (what demi optimal --subsets would report). False says nothing: the search did not run or did not finish.
	Optimal bool
}

// ErrNotReproduced is returned when the input does not reproduce its violation.
var ErrNotReproduced = errors.New("the trace does not reproduce its violation")

// modes maps a Config.Strategy to the checks' mode.
var modes = map[string]dpor.Mode{"": dpor.TFB, "tfb": dpor.TFB, "sts": dpor.STS, "nodiverge": dpor.NoDiverge}

// ValidStrategy reports whether s is an accepted strategy name.
func ValidStrategy(s string) bool { _, ok := modes[s]; return ok }

// shared is the state of a run that its forks (beam.go) share with it.
type shared struct {
	sys            *record.System
	opts, resolved record.Options
	seed           uint64
	target         string
	mode           dpor.Mode
	fp             *fingerprint.Fingerprinter
	table          []pass
	checks         []*dpor.Checker
	tallies        map[*dpor.Checker]*tally // each checker's schedule count in a scan (firstIn)
	checked        *checked                 // the candidates checked without success (cache.go)
	proofs         *optimal.Proofs          // what the optimum pass's exhausted searches proved, for the run and its forks
	failures       *failures                // the pass calls that failed (Result.Failures)
	maxComponents  map[string]int           // the input's most components per Shrinkable type (readInput)
	dropped        []record.Event           // the input's reinsertable events
	contents       []record.Message         // the input's distinct Shrinkable contents
	timers         []record.Event           // the input's first firing of each timer key
	injected       []record.Message         // the generators' other contents (retarget), once computed
	images         map[string]record.Perm   // the target's symmetric images → relabelling onto it (cachedCheck)
	start          time.Time
}

// minimizer is one run, or a fork of one (beam.go).
type minimizer struct {
	*shared
	cfg Config

	schedules atomic.Int64
	steps     atomic.Int64 // the work done so far (firstTrace)
	limit     atomic.Int64 // where the running stage must end
	// The stall rule (driver.go): the steps at the last improvement, the beam's second starts' steps (left
	// out), no stall (initial window, cleanup, forks), the floor and the running call's start, and Whole.
	lastImprovement, uncounted atomic.Int64
	noStall                    bool
	stallFloor, callStart      int64
	whole                      bool

	// The driver's state (driver.go), per pass: calls, the best trace last
	// left, statistics.
	calls           map[string]int
	left            map[string]*record.Trace
	passStats       map[string]*PassStats
	forkStats       map[string]*PassStats // the forks' calls, per pass (one map, the run's, every fork writes in turn)
	resuming        bool
	skip            map[string]bool
	afterProvenance *record.Trace
	stallCap        int64 // when set, bounds a fork's work: its parent's stall point
	// forks caches whether the best trace (that pointer) forks soundly: every search pass asks (searches).
	forks struct {
		of *record.Trace
		ok bool
	}
	// The beam (beam.go): whether its starts ran and the own descent began (until then its result waits in
	// kept); in a fork, removal tier only, keeping named actors in configurations (groupEdits), the passes
	// run ahead of their tier, and its removal calls' steps.
	beamed, descending bool
	kept               *record.Trace
	other              *record.Trace            // the beam's other member (descendOther): the best trace kept displaced,
	otherLeft          map[string]*record.Trace // and what each pass had left then
	routes             []*record.Trace          // the starts' results not yet descended (route)
	removalsOnly       bool
	keepNamed          bool
	ahead              map[string]bool
	removalSteps       int64
	movesFrom          int // the best trace's external events when the move tier first ran (route)

	mu               sync.Mutex // guards best, stage, pace, stages (read by progress)
	best             *record.Trace
	stage            string
	pace             []PacePoint
	stages           []StageStats
	stageT0          time.Time
	stageS0, stageW0 int64
	stageB0          *record.Trace
	progress         sync.Mutex // serializes Progress calls
}

// Run minimizes t, a trace of sys that records a violation. When ctx is
// cancelled Run returns the best trace found so far with Interrupted set.
func Run(ctx context.Context, sys *record.System, t *record.Trace, cfg Config) (*Result, error) {
	m, err := newMinimizer(sys, t, cfg)
	if err != nil {
		return nil, err
	}
	m.noStall = true // the initial window search is bounded by its share alone
	m.stallFloor = max(minStallFloor, stallPerEvent*int64(t.Header.Deliveries+t.Header.Externals))

	// The input, or a long trace's window (window.go), must reproduce exactly.
	m.setStage(StageInitial)
	deadline, cancel := context.WithDeadline(ctx, m.start.Add(m.cfg.Budget))
	defer cancel()
	m.limit.Store(m.shareOf(windowShare, m.cfg.Steps))
	win, err := m.windowFirst(ctx, deadline, t)
	if err != nil {
		return nil, err
	}
	m.best = t
	var replayed *record.Trace // the input's exact replay, verified
	if win == nil {
		rep, err := replay.Run(deadline, sys, t)
		if err != nil {
			if ctx.Err() == nil && deadline.Err() != nil {
				return nil, fmt.Errorf("minimize: the budget of %s ran out while replaying the input, before its violation was reproduced: %w", m.cfg.Budget, err)
			}
			return nil, fmt.Errorf("minimize: replaying the input: %w", err)
		}
		m.schedules.Add(1)
		if !rep.Reproduced {
			return nil, fmt.Errorf("%w (%s)", ErrNotReproduced, rep.Why())
		}
		m.best = rep.Sim.Trace(rep.Violation)
		m.best.Events = append([]record.Event(nil), m.best.Events...)
		replayed = m.best
	}
	m.readInput(m.best.Events)
	m.recordPace(true)
	m.endStage()
	m.offer(win)
	if err := m.newChecks(); err != nil {
		return nil, err
	}
	stop := m.startProgress()
	m.noStall = false
	runErr := m.drive(deadline)
	outOfTime := ctx.Err() == nil && deadline.Err() != nil
	cancel()
	stop()
	res := &Result{Interrupted: ctx.Err() != nil, OutOfTime: outOfTime}
	if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
		return nil, runErr
	}
	// A fresh context: an interrupted run still verifies what it writes.
	m.setStage(StageFinal)
	best := m.snapshotBest()
	if best != replayed {
		vctx, vcancel := context.WithTimeout(context.Background(), finalReplayTimeout)
		defer vcancel()
		rep, err := replay.Run(vctx, sys, best)
		if err != nil {
			return nil, fmt.Errorf("minimize: verifying the result: %w", err)
		}
		m.schedules.Add(1)
		if !rep.Reproduced {
			return nil, fmt.Errorf("minimize: internal error: the minimized trace does not replay its violation (%v)", rep.Divergence)
		}
	}
	m.endStage()
	best.Header.Note = fmt.Sprintf("minimized by demi (strategy %s) from %d deliveries and %d externals",
		cmp.Or(m.cfg.Strategy, "tfb"), t.Header.Deliveries, t.Header.Externals)
	res.Trace, res.Optimal = best, m.proofs.Covers(best, total(best)-1)
	m.mu.Lock()
	res.Stages = append([]StageStats(nil), m.stages...)
	res.Pace = append([]PacePoint(nil), m.pace...)
	m.mu.Unlock()
	res.Passes = m.passResults()
	m.failures.Lock()
	res.Failures = slices.Clone(m.failures.errs)
	m.failures.Unlock()
	res.Final = res.Stages[len(res.Stages)-1]
	return res, nil
}

// newMinimizer sets up a run of cfg on t, cfg's defaults filled in.
func newMinimizer(sys *record.System, t *record.Trace, cfg Config) (*minimizer, error) {
	if t == nil || t.Header.Violation == nil || t.Header.Violation.Fingerprint == "" {
		return nil, errors.New("minimize: the trace records no violation")
	}
	mode, ok := modes[cfg.Strategy]
	if !ok {
		return nil, fmt.Errorf("minimize: unknown strategy %q (want tfb, sts or nodiverge)", cfg.Strategy)
	}
	cfg.Budget = orDefault(cfg.Budget, DefaultBudget)
	cfg.Workers = min(orDefault(cfg.Workers, runtime.NumCPU()), 4*runtime.NumCPU()) // more add memory, not speed
	cfg.MaxSchedules = orDefault(cfg.MaxSchedules, defaultMaxSchedules)
	cfg.TFBScale = orDefault(cfg.TFBScale, defaultTFBScale)
	cfg.Steps = orDefault(cfg.Steps, DefaultStepsFor(t))
	sh := &shared{sys: sys, opts: t.Header.OptionMap(), seed: t.Header.Seed, target: t.Header.Violation.Fingerprint,
		mode: mode, fp: fingerprint.For(sys, cfg.Fingerprint), table: passTable(), failures: &failures{}, proofs: &optimal.Proofs{}, start: time.Now()}
	if cfg.patchTable != nil {
		cfg.patchTable(sh.table)
	}
	var err error
	if sh.resolved, err = sys.Resolve(sh.opts); err != nil {
		return nil, fmt.Errorf("minimize: %w", err)
	}
	members := sys.Members(sh.resolved)
	sh.images = sys.Symmetry.Images(sh.resolved, members, t.Events, sh.target, passNamed(sh.table, StageGather).limits.members)
	m := &minimizer{shared: sh, cfg: cfg, skip: map[string]bool{},
		calls: map[string]int{}, left: map[string]*record.Trace{}, passStats: map[string]*PassStats{}, forkStats: map[string]*PassStats{}}
	for _, name := range cfg.Skip {
		if passNamed(sh.table, name) == nil {
			return nil, fmt.Errorf("minimize: unknown pass %q", name)
		}
		m.skip[name] = true
	}
	return m, nil
}

// orDefault returns v, or d when v is not positive.
func orDefault[T int | int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// readInput notes what the passes read off the input's events.
func (m *minimizer) readInput(events []record.Event) {
	m.maxComponents = map[string]int{}
	seen := map[uint64]bool{}
	for _, e := range events {
		if sh, ok := e.Msg.(record.Shrinkable); ok && e.Kind == record.Send {
			name := record.TypeName(e.Msg)
			m.maxComponents[name] = max(m.maxComponents[name], sh.Components())
			if f := m.fp.Of(e.Msg).Full; !seen[f] {
				seen[f] = true
				m.contents = append(m.contents, e.Msg)
			}
		}
	}
	m.dropped = reinsertable(events)
	m.timers = firstTimers(events)
}

// newChecks makes the workers' checkers, once.
func (m *minimizer) newChecks() error {
	if m.checks != nil {
		return nil
	}
	var allowed *dpor.Transitions
	if m.mode == dpor.NoDiverge {
		var err error
		allowed, err = dpor.Observe(m.sys, m.opts, m.seed, m.best.Events, m.best.Header.Violation, m.cfg.Fingerprint)
		if err != nil {
			return fmt.Errorf("minimize: %w", err)
		}
	}
	m.tallies = map[*dpor.Checker]*tally{}
	if !m.cfg.fullChecks {
		m.checked = newChecked()
	}
	also := slices.Sorted(maps.Keys(m.images))
	for range m.cfg.Workers {
		c, err := dpor.New(dpor.Config{System: m.sys, Options: m.opts, Seed: m.seed, Target: m.target, Also: also,
			Mode: dpor.STS, MaxSchedules: 1, Fingerprint: m.cfg.Fingerprint, Allowed: allowed})
		if err != nil {
			return fmt.Errorf("minimize: %w", err)
		}
		m.checks = append(m.checks, c)
		m.tallies[c] = &tally{}
	}
	return nil
}

// errStepBudget ends a stage whose share of the step budget is used up.
var errStepBudget = errors.New("the stage's share of the step budget is used up")

// shareOf returns where a stage that may use share of the steps left before end ends.
func (m *minimizer) shareOf(share float64, end int64) int64 {
	done := m.steps.Load()
	return done + int64(float64(max(end-done, 0))*share)
}

func (m *minimizer) snapshotBest() *record.Trace {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.best
}

// smaller orders traces: fewer deliveries plus externals, then fewer
// deliveries, then lighter external message contents.
func smaller(a, b *record.Trace) bool {
	if ta, tb := total(a), total(b); ta != tb {
		return ta < tb
	}
	if a.Header.Deliveries != b.Header.Deliveries {
		return a.Header.Deliveries < b.Header.Deliveries
	}
	return weight(a) < weight(b)
}

// offer makes tr the best trace if it is smaller (nil is not), reporting whether.
func (m *minimizer) offer(tr *record.Trace) bool {
	return tr != nil && m.replaceBest(tr, func(best *record.Trace) bool { return smaller(tr, best) })
}

// replaceBest makes tr the best trace if take(best) holds, and reports whether it did.
func (m *minimizer) replaceBest(tr *record.Trace, take func(best *record.Trace) bool) bool {
	m.mu.Lock()
	if !take(m.best) {
		m.mu.Unlock()
		return false
	}
	fewer := total(tr) < total(m.best) || tr.Header.Deliveries < m.best.Header.Deliveries
	m.best = tr
	m.mu.Unlock()
	m.recordPace(fewer)
	return true
}

// recordPace notes a pace point; fewer (fewer events or deliveries, not
// just lighter contents) restarts the stall rule's count.
func (m *minimizer) recordPace(fewer bool) {
	m.mu.Lock()
	if fewer {
		m.lastImprovement.Store(m.steps.Load() - m.uncounted.Load())
	}
	m.pace = append(m.pace, PacePoint{Schedules: m.schedules.Load(), Steps: m.steps.Load(), Deliveries: m.best.Header.Deliveries, Externals: m.best.Header.Externals})
	m.mu.Unlock()
}

func (m *minimizer) setStage(name string) {
	m.mu.Lock()
	m.stage, m.stageT0, m.stageB0 = name, time.Now(), m.best
	m.stageS0, m.stageW0 = m.schedules.Load(), m.steps.Load()
	m.mu.Unlock()
	m.report()
}

func (m *minimizer) endStage() {
	m.mu.Lock()
	row := StageStats{Name: m.stage, Deliveries: m.best.Header.Deliveries,
		Externals: m.best.Header.Externals, Schedules: m.schedules.Load() - m.stageS0, Steps: m.steps.Load() - m.stageW0,
		Seconds: time.Since(m.stageT0).Seconds()}
	m.stages = append(m.stages, row)
	before := m.stageB0
	m.mu.Unlock()
	if (m.passStats != nil || m.forkStats != nil) && before != nil {
		m.notePass(row, before)
	}
}

func (m *minimizer) report() {
	if m.cfg.Progress == nil {
		return
	}
	m.mu.Lock()
	p := Progress{Stage: m.stage, Schedules: m.schedules.Load(), Elapsed: time.Since(m.start), Budget: m.cfg.Budget}
	if m.best != nil {
		p.Deliveries, p.Externals = m.best.Header.Deliveries, m.best.Header.Externals
	}
	m.mu.Unlock()
	m.progress.Lock()
	m.cfg.Progress(p)
	m.progress.Unlock()
}

// startProgress reports progress every 250ms until the returned func is called.
func (m *minimizer) startProgress() func() {
	if m.cfg.Progress == nil {
		return func() {}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				m.report()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// candidate builds the plan of candidate i; nil skips it.
type candidate func(fp *fingerprint.Fingerprinter, i int) dpor.Plan

// attempt checks candidate i on c: the trace it found (or nil), its steps.
type attempt func(c *dpor.Checker, i int) (tr *record.Trace, steps int64, err error)

// first is firstTrace over candidates checked in mode with at most maxSched schedules each.
func (m *minimizer) first(ctx context.Context, n int, mode dpor.Mode, maxSched int, gen candidate) (int, *record.Trace, error) {
	if m.mode == dpor.NoDiverge {
		mode = dpor.NoDiverge // every check aborts at a transition the input never made
	}
	return m.firstKept(ctx, n, checkSettings{mode: mode, maxSched: maxSched}, gen, nil)
}

// firstKept is firstTrace over candidates checked with settings s, a
// check's trace a success when keep (if any) holds for it.
func (m *minimizer) firstKept(ctx context.Context, n int, s checkSettings, gen candidate, keep func(*record.Trace) bool) (int, *record.Trace, error) {
	return m.firstTrace(ctx, n, scanChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		plan := gen(c.Fingerprinter(), i)
		if plan == nil {
			return nil, 0, nil
		}
		tr, steps, err := m.check(ctx, c, s, plan)
		if tr != nil && keep != nil && !keep(tr) {
			tr = nil
		}
		return tr, steps, err
	})
}

// firstTrace runs try for candidates 0..n-1 on the workers and returns the lowest index whose try
// returned a trace, and that trace, or -1. A chunk counts the steps of its candidates up to its
// first success, as a sequential scan would; the next runs only while steps are below end().
func (m *minimizer) firstTrace(ctx context.Context, n, chunk int, try attempt) (int, *record.Trace, error) {
	for lo := 0; lo < n; lo += chunk {
		if m.steps.Load() >= m.end() {
			return -1, nil, errStepBudget
		}
		f, tr, err := m.firstIn(ctx, lo, min(n, lo+chunk), try)
		if err != nil || f >= 0 {
			return f, tr, err
		}
	}
	return -1, nil, nil
}

// firstIn is firstTrace over candidates lo..hi-1 in one go; an error ends the scan like a success.
func (m *minimizer) firstIn(ctx context.Context, lo, hi int, try attempt) (int, *record.Trace, error) {
	var next, found atomic.Int64
	traces, errs := make([]*record.Trace, hi-lo), make([]error, hi-lo)
	steps, scheds := make([]int64, hi-lo), make([]int64, hi-lo)
	next.Store(int64(lo))
	found.Store(int64(hi))
	work := func(c *dpor.Checker) {
		t := m.tallies[c]
		for {
			i := next.Add(1) - 1
			if i >= int64(hi) || i > found.Load() {
				return
			}
			t.n, t.scan = 0, true
			tr, st, err := try(c, int(i))
			t.scan = false
			k := int(i) - lo
			traces[k], errs[k], steps[k], scheds[k] = tr, err, st, t.n
			if tr != nil || err != nil {
				for {
					if cur := found.Load(); i >= cur || found.CompareAndSwap(cur, i) {
						break
					}
				}
			}
		}
	}
	var wg sync.WaitGroup
	for _, c := range m.checks[:min(len(m.checks), hi-lo)] {
		wg.Go(func() { work(c) })
	}
	wg.Wait()
	f := int(found.Load())
	var sum, sched int64
	for k := range min(f, hi-1) - lo + 1 {
		sum += steps[k]
		sched += scheds[k]
	}
	m.steps.Add(sum)
	m.schedules.Add(sched)
	if f < hi {
		return f, traces[f-lo], errs[f-lo]
	}
	return -1, nil, nil
}

// tally counts the schedules of a checker's candidate while firstIn scans.
type tally struct {
	scan bool
	n    int64
}

// ran counts n schedules of c: toward its candidate in a scan, else the total.
func (m *minimizer) ran(c *dpor.Checker, n int) {
	if t := m.tallies[c]; t != nil && t.scan {
		t.n += int64(n)
		return
	}
	m.schedules.Add(int64(n))
}
