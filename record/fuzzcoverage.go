package record

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Coverage-guided fuzzing (demi fuzz --mode coverage), after ModelFuzz
// (Gulzar's thesis, chapter 5): rather than drawing every run afresh, keep
// a corpus of schedules and mutate them (drop, duplicate or move a
// delivery; add, move or remove a crash, a restart or a partition; change
// a client request), and keep a mutant in the corpus when its run reaches
// an abstract state (see Abstraction) no run reached before. A schedule is
// followed loosely: a delivery of the schedule delivers the first enabled
// message with the same sender, receiver, timer key and message type, and
// is skipped when there is none; after the schedule the run goes on at
// random like a fuzz run. Each run is an ordinary Sim run, so the trace
// of a violation replays and minimizes like any other.

// CoverageConfig configures SearchCoverage.
type CoverageConfig struct {
	SearchConfig
	// Initial is how many runs draw a fresh random schedule before the
	// search starts mutating the corpus (default 8).
	Initial int
	// Corpus bounds the schedules kept (default 256); when it is full a
	// new schedule replaces one drawn at random.
	Corpus int
	// Coverage, when set, is called after every run with the abstract
	// states covered so far.
	Coverage func(CoveragePoint)
}

// CoveragePoint is the coverage of a search after some runs.
type CoveragePoint struct {
	Runs    int
	States  int
	Elapsed time.Duration
}

func (c CoverageConfig) withDefaults() CoverageConfig {
	if c.Initial <= 0 {
		c.Initial = 8
	}
	if c.Corpus <= 0 {
		c.Corpus = 256
	}
	c.FuzzConfig = c.FuzzConfig.withDefaults()
	return c
}

// covStep is one step of a corpus schedule: an event as the run executed
// it, or (gen) an external event to draw from the system's generators.
type covStep struct {
	ev  Event
	gen bool
}

// SearchCoverage runs sys Runs times (run i with seed Seed+i for its
// actors), the first Initial runs at random and every later one a mutant
// of a schedule of the corpus, until a run ends in a violation that
// SearchConfig keeps (as Search does). It returns that trace, or nil, and
// the number of runs tried. The whole search is determined by Seed.
func SearchCoverage(ctx context.Context, sys *System, opts Options, cfg CoverageConfig) (*Trace, int, error) {
	cfg = cfg.withDefaults()
	runs := max(cfg.Runs, 1)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636f766572616765))
	seen := map[uint64]struct{}{}
	var corpus [][]covStep
	start := time.Now()
	prog := SearchProgress{Best: -1}
	for i := 0; i < runs; i++ {
		if err := ctx.Err(); err != nil {
			return nil, i, err
		}
		var sched []covStep
		how := "random"
		if i >= cfg.Initial && len(corpus) > 0 {
			parent := rng.IntN(len(corpus))
			var muts []string
			sched, muts = mutate(rng, corpus[parent], sys)
			how = fmt.Sprintf("mutant of corpus[%d]: %s", parent, strings.Join(muts, ", "))
		}
		c := cfg.FuzzConfig
		c.Seed = cfg.Seed + uint64(i)
		cr, err := newCovRun(sys, opts, c, seen)
		if err != nil {
			return nil, i + 1, err
		}
		v, err := cr.run(ctx, sched)
		if err != nil {
			return nil, i + 1, err
		}
		sim := cr.sim
		if cr.lastNew >= 0 {
			kept := make([]covStep, cr.lastNew+1)
			for k, e := range sim.events[:cr.lastNew+1] {
				kept[k] = covStep{ev: e}
			}
			if len(corpus) < cfg.Corpus {
				corpus = append(corpus, kept)
			} else {
				corpus[rng.IntN(len(corpus))] = kept
			}
		}
		if cfg.Coverage != nil {
			cfg.Coverage(CoveragePoint{Runs: i + 1, States: len(seen), Elapsed: time.Since(start)})
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
			t := sim.handOver(v)
			t.Header.Note = fmt.Sprintf("fuzz --mode coverage seed=%d run %d (%s), %d abstract states covered",
				cfg.Seed, i+1, how, len(seen))
			return t, i + 1, nil
		}
	}
	return nil, runs, nil
}

// covRun is one run of SearchCoverage.
type covRun struct {
	fuzzer
	abs     *Abstraction
	seen    map[uint64]struct{}
	lastNew int // index of the last event that reached a new abstract state, or -1
}

func newCovRun(sys *System, opts Options, cfg FuzzConfig, seen map[uint64]struct{}) (*covRun, error) {
	f, err := newFuzzer(sys, opts, cfg, false, nil)
	if err != nil {
		return nil, err
	}
	f.sim.sch.on = false
	return &covRun{fuzzer: *f, abs: NewAbstraction(f.sim), seen: seen, lastNew: -1}, nil
}

// observe accounts for the events appended since the log had n events.
func (c *covRun) observe(n int) {
	s := c.sim
	for k := n; k < len(s.events); k++ {
		g := c.abs.Update(s, &s.events[k])
		if _, ok := c.seen[g]; !ok {
			c.seen[g] = struct{}{}
			c.lastNew = k
		}
	}
}

// run follows sched loosely (the system's setup when sched is empty),
// then goes on at random.
func (c *covRun) run(ctx context.Context, sched []covStep) (*Violation, error) {
	s := c.sim
	c.observe(0)
	if len(sched) == 0 && s.sys.Setup != nil {
		for _, e := range s.sys.Setup(s.opts) {
			n := len(s.events)
			v, err := c.external(e)
			c.observe(n)
			if v != nil || err != nil {
				return v, err
			}
		}
	}
	injected := 0
	for k, st := range sched {
		if k&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if s.deliveries >= c.cfg.MaxSteps {
			return s.Check(), nil
		}
		n := len(s.events)
		var v *Violation
		var err error
		switch {
		case st.gen:
			injected++
			if e, ok := c.pickExternal(); ok {
				v, err = c.apply(e)
			}
		case st.ev.Kind == Deliver:
			if at := c.match(&st.ev); at >= 0 {
				_, v, err = c.delivered(at)
			}
		default:
			if st.ev.Kind == Send && st.ev.From == External {
				injected++
			}
			v, err = c.apply(st.ev)
		}
		c.observe(n)
		if v != nil || err != nil {
			return v, err
		}
	}
	// The random rest of the run, as in fuzzer.run.
	for step := 0; s.deliveries < c.cfg.MaxSteps; step++ {
		if step&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		n := len(s.events)
		canInject := injected < c.cfg.MaxExternals && len(s.sys.Externals) > 0
		if canInject && c.rng.Float64() < c.cfg.ExternalProb {
			injected++
			if e, ok := c.pickExternal(); ok {
				v, err := c.external(e)
				c.observe(n)
				if v != nil || err != nil {
					return v, err
				}
				continue
			}
		}
		delivered, v, err := c.deliverRandom(false)
		c.observe(n)
		if v != nil || err != nil {
			return v, err
		}
		if !delivered {
			if !canInject {
				break
			}
			injected++
			if e, ok := c.pickExternal(); ok {
				v, err := c.external(e)
				c.observe(n)
				if v != nil || err != nil {
					return v, err
				}
			}
		}
	}
	return s.Check(), nil
}

// apply applies an external event of a schedule (a wait marker only
// marks: the deliveries it waited for follow it in the schedule).
func (c *covRun) apply(e Event) (*Violation, error) {
	if err := c.sim.Apply(e); err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	return c.sim.Check(), nil
}

// match returns the position of the first enabled message like the
// delivery e (sender, receiver, timer key, message type), or -1.
func (c *covRun) match(e *Event) int {
	s := c.sim
	c.buf, _ = s.enabled(c.buf[:0])
	want := TypeName(e.Msg)
	for _, at := range c.buf {
		p := &s.pend[at]
		if p.From == e.From && p.To == e.To && p.Timer == e.Timer && TypeName(p.Msg) == want {
			return int(at)
		}
	}
	return -1
}

// mutate returns a mutant of sched (1 to 3 mutations) and their names.
// The events before the first delivery (the setup) are kept as they are.
func mutate(r *rand.Rand, sched []covStep, sys *System) ([]covStep, []string) {
	out := slices.Clone(sched)
	setup := 0
	for setup < len(out) && out[setup].ev.Kind != Deliver {
		setup++
	}
	var members []ActorID
	if sys.Members != nil {
		for _, st := range out[:setup] {
			if st.ev.Kind == Start {
				members = append(members, st.ev.Actor)
			}
		}
	}
	var names []string
	for range 1 + r.IntN(3) {
		name, ok := mutateOnce(r, &out, setup, members)
		if ok {
			names = append(names, name)
		}
	}
	return out, names
}

// The mutations.
const (
	mutDrop = iota
	mutDuplicate
	mutMove
	mutCrash
	mutPartition
	mutRemoveFault
	mutMoveFault
	mutClient
	mutTruncate
	numMutations
)

func mutateOnce(r *rand.Rand, sched *[]covStep, setup int, members []ActorID) (string, bool) {
	s := *sched
	n := len(s)
	if n <= setup {
		return "", false
	}
	pos := func() int { return setup + r.IntN(n-setup+1) } // an insertion point
	pick := func(f func(covStep) bool) int {               // a random step after the setup with f, or -1
		var idx []int
		for i := setup; i < n; i++ {
			if f(s[i]) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return -1
		}
		return idx[r.IntN(len(idx))]
	}
	isDeliver := func(st covStep) bool { return !st.gen && st.ev.Kind == Deliver }
	isFault := func(st covStep) bool {
		switch st.ev.Kind {
		case Kill, Restart, Partition, Heal:
			return !st.gen
		case Start:
			return !st.gen
		}
		return false
	}
	member := func() ActorID { return members[r.IntN(len(members))] }
	insert := func(at int, st ...covStep) { *sched = slices.Insert(*sched, at, st...) }
	switch r.IntN(numMutations) {
	case mutDrop:
		if i := pick(isDeliver); i >= 0 {
			*sched = slices.Delete(s, i, i+1)
			return "drop a delivery", true
		}
	case mutDuplicate:
		if i := pick(isDeliver); i >= 0 {
			insert(i+1+r.IntN(n-i), s[i])
			return "duplicate a delivery", true
		}
	case mutMove:
		if i := pick(isDeliver); i >= 0 {
			st := s[i]
			s = slices.Delete(s, i, i+1)
			j := min(max(setup, i+r.IntN(41)-20), len(s))
			*sched = slices.Insert(s, j, st)
			return "move a delivery", true
		}
	case mutCrash:
		if len(members) > 0 {
			id := member()
			if r.IntN(2) == 0 {
				insert(pos(), covStep{ev: RestartEvent(id)})
				return "add a restart", true
			}
			at := pos()
			insert(at, covStep{ev: KillEvent(id)})
			insert(min(at+1+r.IntN(100), len(*sched)), covStep{ev: StartEvent(id)})
			return "add a crash", true
		}
	case mutPartition:
		if len(members) > 1 {
			a := r.IntN(len(members))
			b := (a + 1 + r.IntN(len(members)-1)) % len(members)
			one, other := []ActorID{members[a]}, []ActorID{members[b]}
			at := pos()
			insert(at, covStep{ev: PartitionEvent(one, other)})
			insert(min(at+1+r.IntN(200), len(*sched)), covStep{ev: HealEvent(one, other)})
			return "add a partition", true
		}
	case mutRemoveFault:
		if i := pick(isFault); i >= 0 {
			*sched = slices.Delete(s, i, i+1)
			return "remove a fault", true
		}
	case mutMoveFault:
		if i := pick(isFault); i >= 0 {
			st := s[i]
			s = slices.Delete(s, i, i+1)
			j := min(max(setup, i+r.IntN(201)-100), len(s))
			*sched = slices.Insert(s, j, st)
			return "move a fault", true
		}
	case mutClient:
		isClient := func(st covStep) bool { return st.gen || st.ev.Kind == Send && st.ev.From == External }
		i := pick(isClient)
		switch {
		case i >= 0 && r.IntN(2) == 0 && len(members) > 1:
			s[i].ev.To = member()
			return "redirect a client request", true
		case i >= 0 && r.IntN(2) == 0:
			s[i] = covStep{gen: true}
			return "replace a client request", true
		default:
			insert(pos(), covStep{gen: true})
			return "add a client request", true
		}
	case mutTruncate:
		*sched = s[:setup+r.IntN(n-setup)]
		return "truncate", true
	}
	return "", false
}
