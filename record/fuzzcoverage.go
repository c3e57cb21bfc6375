package record

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
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

// Coverage is the coverage-guided mode with its defaults (CoverageMode).
var Coverage Mode = CoverageMode{}

// CoverageMode is coverage-guided fuzzing (demi fuzz --mode coverage). A
// campaign keeps its corpus and the abstract states seen across its runs,
// so a run depends on the runs before it in the campaign: the search from
// the same first seed makes the same runs, but a run's seed alone does
// not make it again.
type CoverageMode struct {
	// Initial is how many runs draw a fresh random schedule before the
	// campaign starts mutating its corpus (default 8).
	Initial int
	// Corpus bounds the schedules kept (default 256); when it is full a
	// new schedule replaces one drawn at random.
	Corpus int
	// Report, when set, is called after every run with the abstract
	// states covered so far.
	Report func(CoveragePoint)
}

// CoveragePoint is the coverage of a campaign after some runs.
type CoveragePoint struct {
	Runs    int
	States  int
	Elapsed time.Duration
}

// Name is "coverage".
func (CoverageMode) Name() string { return "coverage" }

// Campaign prepares a coverage-guided search; its corpus mutations are
// drawn from cfg.Seed.
func (m CoverageMode) Campaign(sys *System, opts Options, cfg SearchConfig) (Campaign, error) {
	if m.Initial <= 0 {
		m.Initial = 8
	}
	if m.Corpus <= 0 {
		m.Corpus = 256
	}
	c := &covCampaign{cfg: cfg.FuzzConfig.withDefaults(), mode: m,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x636f766572616765)), seen: map[uint64]struct{}{}, start: time.Now()}
	var err error
	c.mix, err = newSwarmMix(sys, opts, c.cfg)
	if err != nil {
		return nil, err
	}
	c.plan = c.mix.c.plan
	return c, nil
}

type covCampaign struct {
	plan   *simPlan
	mix    swarmMix // each run's mix of external events (swarm.go)
	cfg    FuzzConfig
	mode   CoverageMode
	rng    *rand.Rand
	seen   map[uint64]struct{}
	corpus [][]covStep
	runs   int
	start  time.Time
}

// covStep is one step of a corpus schedule: an event as the run executed
// it, or (gen) an external event to draw from the system's generators.
type covStep struct {
	ev  Event
	gen bool
}

func (c *covCampaign) Run(ctx context.Context, seed uint64, _ *Sim) (RunResult, error) {
	var sched []covStep
	params := []Option{{Name: "run", Value: strconv.Itoa(c.runs + 1)}}
	if c.runs >= c.mode.Initial && len(c.corpus) > 0 {
		parent := c.rng.IntN(len(c.corpus))
		var muts []string
		sched, muts = mutate(c.rng, c.corpus[parent])
		params = append(params, Option{Name: "parent", Value: strconv.Itoa(parent)},
			Option{Name: "mutations", Value: strings.Join(muts, ", ")})
	}
	c.runs++
	cfg := c.cfg
	cfg.Seed = seed
	opts, weights, drawn := c.mix.draw(seed)
	params = append(params, drawn...)
	cr, err := newCovRun(c.plan, opts, cfg, c.seen)
	if err != nil {
		return RunResult{}, err
	}
	cr.weights = weights
	v, err := cr.run(ctx, sched)
	if err != nil {
		return RunResult{}, err
	}
	if cr.lastNew >= 0 {
		kept := make([]covStep, cr.lastNew+1)
		for k, e := range cr.sim.events[:cr.lastNew+1] {
			kept[k] = covStep{ev: e}
		}
		if len(c.corpus) < c.mode.Corpus {
			c.corpus = append(c.corpus, kept)
		} else {
			c.corpus[c.rng.IntN(len(c.corpus))] = kept
		}
	}
	if c.mode.Report != nil {
		c.mode.Report(CoveragePoint{Runs: c.runs, States: len(c.seen), Elapsed: time.Since(c.start)})
	}
	params = append(params, Option{Name: "states", Value: strconv.Itoa(len(c.seen))})
	return RunResult{Sim: cr.sim, Violation: v, Config: cfg, Params: params}, nil
}

// covRun is one run of a coverage campaign.
type covRun struct {
	fuzzer
	abs     *Abstraction
	seen    map[uint64]struct{}
	lastNew int // index of the last event that reached a new abstract state, or -1
}

func newCovRun(plan *simPlan, opts Options, cfg FuzzConfig, seen map[uint64]struct{}) (*covRun, error) {
	f, err := newFuzzer(plan, opts, cfg, false, chunks[entry]{})
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
		g := c.abs.Update(&s.events[k])
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
func mutate(r *rand.Rand, sched []covStep) ([]covStep, []string) {
	out := slices.Clone(sched)
	setup := 0
	for setup < len(out) && out[setup].ev.Kind != Deliver {
		setup++
	}
	var members []ActorID
	for _, st := range out[:setup] {
		if st.ev.Kind == Start {
			members = append(members, st.ev.Actor)
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
		case Kill, Restart, Partition, Heal, Start:
			return !st.gen
		}
		return false
	}
	// move takes a random step with f (or none: -1) and puts it back at
	// most spread steps away, never into the setup.
	move := func(f func(covStep) bool, spread int) bool {
		i := pick(f)
		if i < 0 {
			return false
		}
		st := s[i]
		s = slices.Delete(s, i, i+1)
		j := min(max(setup, i+r.IntN(2*spread+1)-spread), len(s))
		*sched = slices.Insert(s, j, st)
		return true
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
		if move(isDeliver, 20) {
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
		if move(isFault, 100) {
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
