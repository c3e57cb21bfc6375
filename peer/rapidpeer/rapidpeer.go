// Package rapidpeer is the evaluation's peer: what a Go developer would use
// without demi. It drives a demi system (the same actors, the same
// deterministic runtime) with pgregory.net/rapid's property-based
// state-machine testing, and lets rapid's own shrinker minimize the failing
// case. The evaluation compares its final deliveries and its time with
// demi's on the same bug, on the same machine, in the same run.
//
// One rapid test case is one run of the system: the system's setup external
// events, then up to MaxSteps steps, each drawn by rapid as one value (so
// that rapid's shrinker can delete whole steps): inject an external event
// (made by the system's own fuzz generators, from a random source whose
// bits rapid draws), fire a timer, or deliver a pending message, the choice
// among the enabled ones also drawn by rapid. The property is "the
// invariant holds after every step"; a violation with the wanted
// fingerprint fails it. Because rapid shrinks toward zero, shrunk steps
// become "deliver the oldest enabled message", the most natural schedule.
//
// rapid is built for go test. Outside a test binary this package runs it
// through rapid.Check with its own implementation of rapid.TB, after
// testing.Init, and sets rapid's knobs (checks, seed, shrink time, no fail
// files) through its registered command-line flags, the only interface
// rapid offers for them. Those flags are process-wide, so runs are
// serialized by a lock. Because of that, only the evaluation command
// (cmd/demi-eval, through package eval) links this package: the demi
// command and package cli do not, and a test in cli checks it.
package rapidpeer

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"pgregory.net/rapid"
)

// Config controls one peer run.
type Config struct {
	// Options are the system's options (the bug switch to turn on).
	Options record.Options
	// Seed seeds the actors' randomness (as a trace's seed does) and
	// rapid's search (default 1).
	Seed uint64
	// Fingerprint is the violation to look for; empty means any violation.
	Fingerprint string
	// Budget bounds the search for a failing case (default 30s).
	Budget time.Duration
	// ShrinkBudget bounds rapid's shrinking (default: Budget).
	ShrinkBudget time.Duration
	// MaxSteps bounds the steps of one test case (default 3000, as demi
	// fuzz's --max-steps).
	MaxSteps int
	// ExternalPermille is the chance, per thousand steps, that a step
	// injects an external event (default 67, demi fuzz's default of
	// 2*externals/max-steps); TimerPermille that it fires a timer rather
	// than deliver a message (default 50, demi fuzz's --timer-prob).
	ExternalPermille, TimerPermille int
	// MaxExternals bounds the random external events of one case
	// (default 100).
	MaxExternals int
	// Checks bounds the test cases rapid runs (default 1,000,000; cases
	// after the budget return at once).
	Checks int
}

func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Budget <= 0 {
		c.Budget = 30 * time.Second
	}
	if c.ShrinkBudget <= 0 {
		c.ShrinkBudget = c.Budget
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = 3000
	}
	if c.ExternalPermille <= 0 {
		c.ExternalPermille = 67
	}
	if c.TimerPermille <= 0 {
		c.TimerPermille = 50
	}
	if c.MaxExternals <= 0 {
		c.MaxExternals = 100
	}
	if c.Checks <= 0 {
		c.Checks = 1_000_000
	}
	return c
}

// Result is the outcome of a peer run.
type Result struct {
	// Found reports whether rapid found a failing case within the budget.
	Found bool `json:"found"`
	// Fingerprint is the violation found.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Cases is the number of test cases run until the first failure (or
	// within the budget when none failed).
	Cases int `json:"cases"`
	// FirstDeliveries and FirstExternals size the first failing case,
	// before shrinking.
	FirstDeliveries int `json:"first_deliveries"`
	FirstExternals  int `json:"first_externals"`
	// Deliveries and Externals size rapid's shrunk case.
	Deliveries int `json:"deliveries"`
	Externals  int `json:"externals"`
	// ShrinkCases is the number of test cases run while shrinking.
	ShrinkCases int `json:"shrink_cases"`
	// FindSeconds and ShrinkSeconds are the wall times of the two phases.
	FindSeconds   float64 `json:"find_seconds"`
	ShrinkSeconds float64 `json:"shrink_seconds"`
	// Trace is the shrunk failing case as a demi trace, verified by exact
	// replay (nil when nothing was found).
	Trace *record.Trace `json:"-"`
}

// lock serializes runs: rapid's settings are process-wide flags.
var lock sync.Mutex

// Run searches sys for a failing case with rapid and shrinks it.
func Run(ctx context.Context, sys *record.System, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	if _, err := sys.Resolve(cfg.Options); err != nil {
		return nil, fmt.Errorf("rapid peer: %w", err)
	}
	lock.Lock()
	defer lock.Unlock()
	if err := configureRapid(cfg); err != nil {
		return nil, err
	}

	p := &property{sys: sys, cfg: cfg, ctx: ctx}
	searchCtx, cancel := context.WithTimeout(ctx, cfg.Budget)
	defer cancel()
	p.search = searchCtx
	p.start = time.Now()

	tb := &runTB{name: "demi-peer-" + sys.Name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, p.check)
	}()
	<-done
	if p.err != nil {
		return nil, p.err
	}
	res := &Result{Cases: p.cases}
	if p.first == nil {
		res.FindSeconds = time.Since(p.start).Seconds()
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("rapid peer: %w", err)
		}
		if tb.failed {
			return nil, fmt.Errorf("rapid peer: rapid failed without a violation: %s", tb.lastError)
		}
		return res, nil
	}
	res.Found = true
	res.FindSeconds = p.foundAt.Sub(p.start).Seconds()
	res.ShrinkSeconds = time.Since(p.foundAt).Seconds()
	res.ShrinkCases = p.cases - p.firstCase
	res.Cases = p.firstCase
	res.FirstDeliveries, res.FirstExternals = p.first.Header.Deliveries, p.first.Header.Externals
	final := p.last
	if final == nil {
		final = p.first
	}
	r, err := replay.Run(ctx, sys, final)
	if err != nil {
		return nil, fmt.Errorf("rapid peer: verifying the shrunk case: %w", err)
	}
	if !r.Reproduced {
		return nil, fmt.Errorf("rapid peer: the shrunk case does not replay (%v)", r.Divergence)
	}
	res.Trace = final
	res.Fingerprint = final.Header.Violation.Fingerprint
	res.Deliveries, res.Externals = final.Header.Deliveries, final.Header.Externals
	return res, nil
}

// configureRapid sets rapid's process-wide knobs through its flags.
func configureRapid(cfg Config) error {
	testing.Init() // rapid calls testing.Short, which needs the testing flags
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return fmt.Errorf("rapid peer: %w", err)
		}
	}
	settings := []struct{ name, value string }{
		{"rapid.checks", strconv.Itoa(cfg.Checks)},
		{"rapid.seed", strconv.FormatUint(cfg.Seed, 10)},
		{"rapid.shrinktime", cfg.ShrinkBudget.String()},
		{"rapid.nofailfile", "true"},
		{"rapid.v", "false"},
		{"rapid.log", "false"},
		{"test.short", "false"},
	}
	for _, s := range settings {
		if err := flag.CommandLine.Set(s.name, s.value); err != nil {
			return fmt.Errorf("rapid peer: setting %s: %w", s.name, err)
		}
	}
	return nil
}

// property is rapid's property: one run of the system per test case.
type property struct {
	sys    *record.System
	cfg    Config
	ctx    context.Context // the caller's: cancels everything
	search context.Context // ends the search phase
	start  time.Time

	cases     int
	firstCase int
	foundAt   time.Time
	first     *record.Trace // first failing case
	last      *record.Trace // latest failing case: after shrinking, rapid's minimum
	err       error
}

// step is one drawn step of a test case.
type step struct {
	// Kind in [0, 1000) picks the step's kind: the top ExternalPermille
	// values inject an external event, the TimerPermille below them fire
	// a timer, the rest deliver a message (so shrinking toward 0 makes
	// steps plain deliveries).
	Kind int
	Pick uint64 // which enabled message, or the external generator's random bits
}

func (p *property) stepGen() *rapid.Generator[step] {
	return rapid.Custom(func(t *rapid.T) step {
		return step{
			Kind: rapid.IntRange(0, 999).Draw(t, "kind"),
			Pick: rapid.Uint64Range(0, 1<<32).Draw(t, "pick"),
		}
	})
}

func (p *property) check(t *rapid.T) {
	if p.ctx.Err() != nil || p.err != nil {
		return
	}
	if p.first == nil && p.search.Err() != nil {
		return // the search budget is spent: let rapid's remaining checks pass
	}
	p.cases++
	sim, err := record.NewSim(p.sys, p.cfg.Options, p.cfg.Seed)
	if err != nil {
		p.err = fmt.Errorf("rapid peer: %w", err)
		return
	}
	r := &run{p: p, t: t, sim: sim, gen: p.stepGen()}
	v := r.play()
	if v == nil {
		return
	}
	tr := sim.Trace(v)
	tr.Header.Note = fmt.Sprintf("rapid peer: seed=%d", p.cfg.Seed)
	if p.first == nil {
		p.first, p.firstCase, p.foundAt = tr, p.cases, time.Now()
	}
	p.last = tr
	// The message must not vary between cases: rapid's shrinker keeps a
	// smaller case only when it fails the same way.
	t.Fatalf("violation %s", v.Fingerprint)
}

// run is one test case in progress.
type run struct {
	p        *property
	t        *rapid.T
	sim      *record.Sim
	gen      *rapid.Generator[step]
	buf      []record.Pending
	injected int
}

// wanted returns v when it is the violation looked for.
func (r *run) wanted(v *record.Violation) *record.Violation {
	if v != nil && (r.p.cfg.Fingerprint == "" || v.Same(record.Want(r.p.cfg.Fingerprint))) {
		return v
	}
	return nil
}

// play runs the case and returns the wanted violation, or nil.
func (r *run) play() *record.Violation {
	if r.p.sys.Setup != nil {
		for _, e := range r.p.sys.Setup(r.sim.Options()) {
			v, stop := r.external(e)
			if v != nil || stop {
				return v
			}
		}
	}
	for i := 0; i < r.p.cfg.MaxSteps; i++ {
		if i%64 == 0 && (r.p.ctx.Err() != nil || r.p.first == nil && r.p.search.Err() != nil) {
			return nil
		}
		s := r.gen.Draw(r.t, "step")
		canInject := r.injected < r.p.cfg.MaxExternals && len(r.p.sys.Externals) > 0
		if s.Kind >= 1000-r.p.cfg.ExternalPermille && canInject {
			e, ok := r.makeExternal(s.Pick)
			if !ok {
				continue
			}
			r.injected++
			v, stop := r.external(e)
			if v != nil || stop {
				return v
			}
			continue
		}
		delivered, v, stop := r.deliver(s, false)
		if v != nil || stop {
			return v
		}
		if !delivered && !canInject {
			return nil // quiescent with nothing left to inject
		}
	}
	return nil
}

// makeExternal asks the system's generators for an external event, with a
// random source seeded by rapid's draw.
func (r *run) makeExternal(bits uint64) (record.Event, bool) {
	rng := rand.New(rand.NewPCG(bits, 0x72617069))
	gens := r.p.sys.Externals
	total := 0.0
	for _, g := range gens {
		total += g.Weight
	}
	x := rng.Float64() * total
	for _, g := range gens {
		if x < g.Weight {
			return g.Make(rng, r.sim.View())
		}
		x -= g.Weight
	}
	return record.Event{}, false
}

// external applies e (and, for a wait marker, the deliveries it waits for).
// stop reports that the case must end (another violation or a panic).
func (r *run) external(e record.Event) (*record.Violation, bool) {
	if err := r.sim.Apply(e); err != nil {
		r.p.err = fmt.Errorf("rapid peer: %w", err)
		return nil, true
	}
	if v := r.sim.Check(); v != nil {
		return r.wanted(v), true
	}
	var done func() bool
	switch e.Kind {
	case record.WaitQuiescence:
		done = func() bool { return r.sim.View().InFlight() == 0 }
	case record.WaitCondition:
		cond := r.p.sys.Conditions[e.Cond]
		if cond == nil {
			r.p.err = fmt.Errorf("rapid peer: system %s has no condition %q", r.p.sys.Name, e.Cond)
			return nil, true
		}
		done = func() bool { return cond(r.sim.View()) }
	default:
		return nil, false
	}
	limit := e.Limit
	if limit <= 0 {
		limit = 200
	}
	for i := 0; i < limit && !done(); i++ {
		s := r.gen.Draw(r.t, "wait-step")
		delivered, v, stop := r.deliver(s, e.Kind == record.WaitQuiescence)
		if v != nil || stop || !delivered {
			return v, stop
		}
	}
	return nil, false
}

// deliver delivers the enabled message (or timer) s picks.
func (r *run) deliver(s step, noTimers bool) (bool, *record.Violation, bool) {
	r.buf = r.sim.Enabled(r.buf[:0])
	msgs, timers := 0, 0
	for _, q := range r.buf {
		if q.Timer == "" {
			msgs++
		} else {
			timers++
		}
	}
	if msgs+timers == 0 || noTimers && msgs == 0 {
		return false, nil, false
	}
	wantTimer := timers > 0 && !noTimers && (msgs == 0 || s.Kind >= 1000-r.p.cfg.ExternalPermille-r.p.cfg.TimerPermille)
	n := msgs
	if wantTimer {
		n = timers
	}
	k := int(s.Pick % uint64(n))
	var id record.MsgID
	for _, q := range r.buf {
		if (q.Timer != "") == wantTimer {
			if k == 0 {
				id = q.ID
				break
			}
			k--
		}
	}
	if err := r.sim.Deliver(id); err != nil {
		r.p.err = fmt.Errorf("rapid peer: %w", err)
		return false, nil, true
	}
	if v := r.sim.Check(); v != nil {
		return true, r.wanted(v), true
	}
	return true, nil, false
}

// runTB is a rapid.TB outside go test: it records failures, discards
// rapid's log lines, and ends the goroutine rapid runs in on FailNow and
// SkipNow, as testing.T does.
type runTB struct {
	name      string
	failed    bool
	lastError string
}

func (b *runTB) Helper()                   {}
func (b *runTB) Name() string              { return b.name }
func (b *runTB) Logf(string, ...any)       {}
func (b *runTB) Log(...any)                {}
func (b *runTB) Skipf(string, ...any)      { runtime.Goexit() }
func (b *runTB) Skip(...any)               { runtime.Goexit() }
func (b *runTB) SkipNow()                  { runtime.Goexit() }
func (b *runTB) Errorf(f string, a ...any) { b.failed, b.lastError = true, fmt.Sprintf(f, a...) }
func (b *runTB) Error(a ...any)            { b.failed, b.lastError = true, fmt.Sprint(a...) }
func (b *runTB) Fatalf(f string, a ...any) { b.Errorf(f, a...); b.FailNow() }
func (b *runTB) Fatal(a ...any)            { b.Error(a...); b.FailNow() }
func (b *runTB) FailNow()                  { b.failed = true; runtime.Goexit() }
func (b *runTB) Fail()                     { b.failed = true }
func (b *runTB) Failed() bool              { return b.failed }
