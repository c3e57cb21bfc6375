package record

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// FuzzConfig controls a random run.
type FuzzConfig struct {
	// Seed determines the whole run: same seed, same trace.
	Seed uint64
	// MaxSteps bounds the deliveries of a run (default 3000).
	MaxSteps int
	// MaxExternals bounds the random external events injected after the
	// setup prefix (default 100).
	MaxExternals int
	// ExternalProb is the chance that a step injects an external event
	// rather than delivering a message (default 2*MaxExternals/MaxSteps).
	ExternalProb float64
	// TimerProb is the chance that a delivery fires a timer rather than a
	// message, when both are enabled (default 0.05). Low values keep the
	// system from timing out all the time.
	TimerProb float64
	// CheckEvery checks the invariant every N deliveries (default 1). A
	// panicking handler is caught at once whatever N is.
	CheckEvery int
	// WaitLimit bounds the deliveries a wait marker may take (default 200).
	WaitLimit int
	// Script, when set, replaces the system's setup and its random
	// external events: the run injects these external events (a trace's
	// starts, sends, kills, ...; deliveries in it are skipped), in this
	// order, the first before any delivery, each later one at a step with
	// probability ExternalProb or as soon as nothing is enabled, and
	// delivers at random in between. MaxExternals does not apply. It is
	// how a minimizer looks for another schedule of the same external
	// events (package minimize, resample.go).
	Script []Event
}

func (c FuzzConfig) withDefaults() FuzzConfig {
	if c.MaxSteps <= 0 {
		c.MaxSteps = 3000
	}
	if c.MaxExternals < 0 {
		c.MaxExternals = 0
	} else if c.MaxExternals == 0 {
		c.MaxExternals = 100
	}
	if c.ExternalProb <= 0 {
		c.ExternalProb = min(1, 2*float64(c.MaxExternals)/float64(c.MaxSteps))
	}
	if c.TimerProb <= 0 {
		c.TimerProb = 0.05
	}
	if c.CheckEvery <= 0 {
		c.CheckEvery = 1
	}
	if c.WaitLimit <= 0 {
		c.WaitLimit = 200
	}
	return c
}

// Fuzz runs sys once at random: the system's setup externals, then random
// external events (by the generators' weights) interleaved with random
// deliveries that respect the network semantics, checking the invariant
// every CheckEvery deliveries, until a violation or MaxSteps deliveries. The
// returned trace's header holds the violation, or nil if none was found.
func Fuzz(ctx context.Context, sys *System, opts Options, cfg FuzzConfig) (*Trace, error) {
	cfg = cfg.withDefaults()
	plan, err := planSims(sys)
	if err != nil {
		return nil, err
	}
	sim, v, err := fuzz(ctx, plan, opts, cfg, false, chunks[entry]{})
	if err != nil {
		return nil, err
	}
	return fuzzTrace(sim, v, cfg), nil
}

// fuzzTrace is the trace of a finished fuzz run.
func fuzzTrace(sim *Sim, v *Violation, cfg FuzzConfig) *Trace {
	t := sim.handOver(v)
	t.Header.Note = fmt.Sprintf("fuzz seed=%d max-steps=%d", cfg.Seed, cfg.MaxSteps)
	return t
}

// fuzz runs Fuzz (cfg with its defaults) and returns the finished Sim and
// its violation. A lazy run (one of a campaign, likely to be discarded)
// keeps its event log compact (see Sim.log), recording into spare's memory
// (the log of a discarded run), if any: fresh memory costs more than the
// run itself on a small workload.
func fuzz(ctx context.Context, plan *simPlan, opts Options, cfg FuzzConfig, lazy bool, spare chunks[entry]) (*Sim, *Violation, error) {
	f, err := newFuzzer(plan, opts, cfg, lazy, spare)
	if err != nil {
		return nil, nil, err
	}
	v, err := f.finish(ctx)
	if err != nil {
		return nil, nil, err
	}
	return f.sim, v, nil
}

// finish runs f to its end and returns its violation, or the error of a
// run that cannot be trusted (a system mistake such as an unregistered
// message type).
func (f *fuzzer) finish(ctx context.Context) (*Violation, error) {
	v, err := f.run(ctx)
	if err == nil {
		err = f.sim.SystemError()
	}
	return v, err
}

// newFuzzer prepares a fuzz run (see fuzz).
func newFuzzer(plan *simPlan, opts Options, cfg FuzzConfig, lazy bool, spare chunks[entry]) (*fuzzer, error) {
	sim, err := plan.newSim(opts, cfg.Seed)
	if err != nil {
		return nil, err
	}
	sim.lazy = lazy
	sim.log, sim.ext = spare, withLen[Event](extLen)
	// Room for a short run; a run that turns out long gets room for its
	// step limit when its log first fills up beyond 1024 events.
	sim.expect = cfg.MaxSteps + cfg.MaxExternals + 64
	sim.Reserve(64)
	sim.sch.on, sim.sch.hint = sim.sem == FIFO, -1
	pcg := rand.NewPCG(cfg.Seed, 0x64656d69)
	return &fuzzer{sim: sim, cfg: cfg, pcg: pcg, rng: rand.New(pcg)}, nil
}

type fuzzer struct {
	sim   *Sim
	cfg   FuzzConfig
	rng   *rand.Rand
	pcg   *rand.PCG // rng's source
	buf   []int32   // enabled messages, as positions in the Sim's pending list
	heads []head    // scratch: the enabled set without links to actors that are down
	// timers is scratch: the timers the clock lets fire (a run with a
	// time model).
	timers []head
	// weights, when set, replace the generators' weights (a swarm run).
	weights []float64
}

func (f *fuzzer) run(ctx context.Context) (*Violation, error) {
	s := f.sim
	if f.cfg.Script != nil {
		return f.runScript(ctx)
	}
	if s.sys.Setup != nil {
		for _, e := range s.sys.Setup(s.opts) {
			if v, err := f.external(e); v != nil || err != nil {
				return v, err
			}
		}
	}
	injected := 0
	for step := 0; s.deliveries < f.cfg.MaxSteps; step++ {
		// Every 1024 iterations, not deliveries: a run may start past a
		// multiple of 1024 (setup waits) and end before the next.
		if step&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		canInject := injected < f.cfg.MaxExternals && len(s.sys.Externals) > 0
		if canInject && f.rng.Float64() < f.cfg.ExternalProb {
			if e, ok := f.pickExternal(); ok {
				injected++
				if v, err := f.external(e); v != nil || err != nil {
					return v, err
				}
				continue
			}
		}
		delivered, v, err := f.deliverRandom(false)
		if v != nil || err != nil {
			return v, err
		}
		if !delivered {
			if !canInject {
				break // quiescent and nothing left to inject
			}
			if e, ok := f.pickExternal(); ok {
				injected++
				if v, err := f.external(e); v != nil || err != nil {
					return v, err
				}
			} else {
				injected++ // count failed attempts so a stuck run ends
			}
		}
	}
	return s.Check(), nil
}

// runScript is run with FuzzConfig.Script: the script's external events
// in order, random deliveries in between.
func (f *fuzzer) runScript(ctx context.Context) (*Violation, error) {
	s := f.sim
	script := f.cfg.Script
	next := 0
	inject := func() (*Violation, error) {
		for next < len(script) && script[next].Kind == Deliver {
			next++
		}
		if next == len(script) {
			return nil, nil
		}
		e := script[next]
		next++
		return f.external(e)
	}
	for step := 0; s.deliveries < f.cfg.MaxSteps; step++ {
		if step&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if next < len(script) && (next == 0 || f.rng.Float64() < f.cfg.ExternalProb) {
			if v, err := inject(); v != nil || err != nil {
				return v, err
			}
			continue
		}
		delivered, v, err := f.deliverRandom(false)
		if v != nil || err != nil {
			return v, err
		}
		if !delivered {
			if next == len(script) {
				break // quiescent and nothing left to inject
			}
			if v, err := inject(); v != nil || err != nil {
				return v, err
			}
		}
	}
	return s.Check(), nil
}

func (f *fuzzer) pickExternal() (Event, bool) {
	gens := f.sim.sys.Externals
	weight := func(i int) float64 {
		if f.weights != nil {
			return f.weights[i]
		}
		return gens[i].Weight
	}
	total := 0.0
	for i := range gens {
		total += weight(i)
	}
	x := f.rng.Float64() * total
	for i, g := range gens {
		if w := weight(i); x < w {
			return g.Make(f.rng, f.sim.View())
		} else {
			x -= w
		}
	}
	return Event{}, false
}

// external applies e; wait markers are followed by the deliveries they wait for.
func (f *fuzzer) external(e Event) (*Violation, error) {
	s := f.sim
	if err := s.Apply(e); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	if v := s.Check(); v != nil {
		return v, nil
	}
	var done func() bool
	switch e.Kind {
	case WaitQuiescence:
		done = func() bool { return s.View().NumInFlight() == 0 }
	case WaitCondition:
		cond := s.sys.Conditions[e.Cond]
		if cond == nil {
			return nil, fmt.Errorf("fuzz: system %s has no condition %q", s.sys.Name, e.Cond)
		}
		done = func() bool { return cond(s.View()) }
	default:
		return nil, nil
	}
	limit := e.Limit
	if limit <= 0 {
		limit = f.cfg.WaitLimit
	}
	for i := 0; i < limit && !done() && s.deliveries < f.cfg.MaxSteps; i++ {
		delivered, v, err := f.deliverRandom(e.Kind == WaitQuiescence)
		if v != nil || err != nil || !delivered {
			return v, err
		}
	}
	return nil, nil
}

// deliverRandom delivers one random enabled message (a timer with
// probability TimerProb, or when no message is enabled, unless noTimers).
func (f *fuzzer) deliverRandom(noTimers bool) (bool, *Violation, error) {
	s := f.sim
	if s.sch.on {
		return f.deliverScheduled(noTimers)
	}
	var timers int
	f.buf, timers = s.enabled(f.buf[:0])
	if s.tm != nil && timers > 0 { // only the timers the clock lets fire
		bound := s.timeBound()
		n := 0
		for _, i := range f.buf {
			if s.meta[i].link != linkTimer || s.mayFire(i, bound) {
				f.buf[n] = i
				n++
			} else {
				timers--
			}
		}
		f.buf = f.buf[:n]
	}
	msgs := len(f.buf) - timers
	if msgs+timers == 0 || noTimers && msgs == 0 {
		return false, nil, nil
	}
	wantTimer := timers > 0 && !noTimers && (msgs == 0 || f.rng.Float64() < f.cfg.TimerProb)
	k := msgs
	if wantTimer {
		k = timers
	}
	k = f.rng.IntN(k)
	at := -1
	for _, i := range f.buf {
		if (s.meta[i].link == linkTimer) == wantTimer {
			if k == 0 {
				at = int(i)
				break
			}
			k--
		}
	}
	return f.delivered(at)
}

// deliverScheduled is deliverRandom over the maintained enabled set
// (FIFO): the same choice, without a scan of the pending list.
func (f *fuzzer) deliverScheduled(noTimers bool) (bool, *Violation, error) {
	s := f.sim
	sc := &s.sch
	if !sc.ok {
		s.reschedule()
	}
	hd, tm := sc.hd, sc.tm
	if s.tm != nil && len(tm) > 0 { // only the timers the clock lets fire
		bound := s.timeBound()
		f.timers = f.timers[:0]
		for _, h := range tm {
			if s.mayFire(h.pos, bound) {
				f.timers = append(f.timers, h)
			}
		}
		tm = f.timers
	}
	timers := len(tm)
	if s.up < len(s.slots) { // a link whose receiver is down is not enabled
		f.heads = f.heads[:0]
		for _, h := range hd {
			if s.runningAt(h.to) {
				f.heads = append(f.heads, h)
			}
		}
		hd = f.heads
	}
	msgs := len(hd)
	if msgs+timers == 0 || noTimers && msgs == 0 {
		return false, nil, nil
	}
	wantTimer := timers > 0 && !noTimers && (msgs == 0 || f.rng.Float64() < f.cfg.TimerProb)
	var h head
	if wantTimer {
		h = tm[f.intN(timers)]
	} else {
		k := f.intN(msgs)
		h = hd[k]
		if len(hd) == len(sc.hd) {
			sc.hint = k // unschedule need not look for it
		}
	}
	at := int(h.pos)
	if at >= len(s.pend) || s.pend[at].ID != h.id || s.pend[at].gone() {
		at = s.find(h.id) // unreachable: positions are kept up to date
	}
	return f.delivered(at)
}

// delivered delivers s.pend[at], enabled, and checks the invariant.
func (f *fuzzer) delivered(at int) (bool, *Violation, error) {
	s := f.sim
	s.deliverAt(at) // enabled, and the run is not halted (checked after every delivery)
	if s.halted != nil {
		return true, s.halted, nil
	}
	if f.cfg.CheckEvery == 1 || s.deliveries%f.cfg.CheckEvery == 0 {
		if v := s.Check(); v != nil {
			return true, v, nil
		}
	}
	return true, nil, nil
}

// SearchConfig extends FuzzConfig for a search over many seeds.
type SearchConfig struct {
	FuzzConfig
	// Runs is the number of seeds tried: Seed, Seed+Stride, ... (default 1).
	Runs int
	// Stride is the step between the seeds of a search (default 1): the
	// shard i of n of a campaign tries Seed+i, Seed+i+n, ... (see
	// Shard).
	Stride uint64
	// Mode makes each run (default Walk).
	Mode Mode
	// MinDeliveries discards violations found with fewer deliveries (the
	// DEMi evaluation kept the first violation with at least 300).
	MinDeliveries int
	// Violation, when set, keeps only violations whose fingerprint starts
	// with it (for example "ElectionSafety"): a run that ends in another
	// violation is discarded like a short one.
	Violation string
	// Progress, when set, is called after every run (it should be cheap:
	// a run can take well under a millisecond).
	Progress func(SearchProgress)
	// Observe, when set, is called with every finished run, before the
	// search decides whether to keep it (a Census counts them); the run's
	// Sim is valid only during the call.
	Observe func(RunResult)
}

// SearchProgress is a snapshot of a running Search.
type SearchProgress struct {
	// Runs is the number of seeds tried so far.
	Runs int
	// Deliveries is the total of the deliveries of every run so far.
	Deliveries int64
	// Best is the number of deliveries of the longest run that ended in a
	// violation (kept or discarded by MinDeliveries), or -1 if none did;
	// BestViolation is its fingerprint.
	Best          int
	BestViolation string
}

// Search fuzzes seed after seed (Seed, Seed+Stride, ...) in cfg.Mode
// (default Walk) until a run ends in a violation with at least
// MinDeliveries deliveries (and, with Violation, a fingerprint that starts
// with it). It returns that trace, or nil and the number of runs tried when
// none did.
func Search(ctx context.Context, sys *System, opts Options, cfg SearchConfig) (*Trace, int, error) {
	var found *Trace
	runs, err := SearchAll(ctx, sys, opts, cfg, func(t *Trace) bool {
		found = t
		return false
	})
	return found, runs, err
}

// SearchAll is Search that hands every kept violating run's trace to keep
// and goes on while keep returns true: a campaign that collects failing
// runs rather than stopping at the first. It returns the number of runs
// made.
func SearchAll(ctx context.Context, sys *System, opts Options, cfg SearchConfig, keep func(*Trace) bool) (int, error) {
	runs := max(cfg.Runs, 1)
	stride := max(cfg.Stride, 1)
	mode := cfg.Mode
	if mode == nil {
		mode = Walk
	}
	camp, err := mode.Campaign(sys, opts, cfg)
	if err != nil {
		return 0, err
	}
	var prev *Sim
	prog := SearchProgress{Best: -1}
	for i := 0; i < runs; i++ {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		r, err := camp.Run(ctx, cfg.Seed+uint64(i)*stride, prev)
		if err != nil {
			return i + 1, err
		}
		sim, v := r.Sim, r.Violation
		if cfg.Observe != nil {
			cfg.Observe(r)
		}
		if cfg.Progress != nil {
			prog.Runs = i + 1
			prog.Deliveries += int64(sim.NumDeliveries())
			if v != nil && sim.NumDeliveries() > prog.Best {
				prog.Best, prog.BestViolation = sim.NumDeliveries(), v.Fingerprint
			}
			cfg.Progress(prog)
		}
		if v != nil && sim.NumDeliveries() >= cfg.MinDeliveries && strings.HasPrefix(v.Fingerprint, cfg.Violation) {
			t := fuzzTrace(sim, v, r.Config)
			if mode != Walk {
				t.Header.Fuzz = &FuzzInfo{Mode: mode.Name(), Params: r.Params}
				t.Header.Note = fmt.Sprintf("fuzz mode=%s seed=%d max-steps=%d", mode.Name(), r.Config.Seed, r.Config.MaxSteps)
			}
			if !keep(t) {
				return i + 1, nil
			}
			prev = nil // handed over: its log belongs to the trace's events
			continue
		}
		// The run is discarded, never materialized as Events: the next
		// one may overwrite its log.
		prev = sim
	}
	return runs, nil
}

// Walk is the random walk of Fuzz: the system's setup, then external
// events by the generators' weights interleaved with random deliveries,
// with the same configuration for every run. It was demi's only mode
// before modes existed; its traces have no Fuzz header field, so they are
// byte for byte what they always were.
var Walk Mode = walkMode{}

type walkMode struct{}

func (walkMode) Name() string { return "walk" }

func (walkMode) Campaign(sys *System, opts Options, cfg SearchConfig) (Campaign, error) {
	plan, err := planSims(sys)
	if err != nil {
		return nil, err
	}
	return walkCampaign{plan: plan, opts: opts, cfg: cfg.FuzzConfig.withDefaults()}, nil
}

type walkCampaign struct {
	plan *simPlan
	opts Options
	cfg  FuzzConfig
}

func (w walkCampaign) Run(ctx context.Context, seed uint64, prev *Sim) (RunResult, error) {
	c := w.cfg
	c.Seed = seed
	sim, v, err := fuzz(ctx, w.plan, w.opts, c, true, spareLog(prev))
	if err != nil {
		return RunResult{}, err
	}
	return RunResult{Sim: sim, Violation: v, Config: c}, nil
}

// spareLog is the memory of a discarded run's event log, or nil.
func spareLog(prev *Sim) chunks[entry] {
	if prev == nil {
		return chunks[entry]{}
	}
	return prev.log.reuse()
}

// intN is f.rng.IntN(n) for n > 0, the very same number, drawn from the
// PCG directly (no call through the Source interface): math/rand/v2's
// algorithm on 64-bit platforms (Lemire's multiply-and-reject).
func (f *fuzzer) intN(n int) int {
	if bits.UintSize == 32 {
		return f.rng.IntN(n)
	}
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(f.pcg.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(f.pcg.Uint64(), u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(f.pcg.Uint64(), u)
		}
	}
	return int(hi)
}
