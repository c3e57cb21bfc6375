package optimal

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// decision is one step of a path through the search: apply the next
// external event, leave it out, decide to apply it later, or deliver a
// message.
type decision struct {
	kind int8
	id   record.MsgID // the message delivered
}

const (
	decApply int8 = iota
	decSkip
	decKeep
	decDeliver
)

// frame is one state of the walk. Frames share their run and slices with
// their parent until they change them: a step forks the run and copies
// what it changes.
type frame struct {
	sim  *record.Sim
	cost int
	ext  int  // the next external event
	kept bool // Subsets: the next external event was decided to happen
	// maxID is the largest message ID whose content key is known.
	maxID record.MsgID
	hist  []uint64 // per-actor history hashes (the commutation filter)
	ah    []uint64 // per-actor state hashes, valid unless marked in dirty
	dirty uint64   // actors that took a step since ah was computed
	ak    uint64   // the actors key (see actorsKey), once expanded
	cut   uint64   // hash of the cut links
	dec   uint64   // hash of the decisions on external events so far
}

// search is one run of Search.
type search struct {
	ctx       context.Context
	cfg       Config
	sys       *record.System
	setup     record.Setup
	want      *record.Violation
	externals []record.Event
	members   []record.ActorID
	index     map[record.ActorID]int
	fp        *fingerprint.Fingerprinter
	start     time.Time

	// seen and hseen map a global state key and a history key to 1 + the
	// largest remaining budget the state was expanded with.
	seen, hseen map[uint64]uint8
	ckey        []uint64 // content key of a message by ID, along the current path
	cnt         []int32  // per-link scratch for pendingHash
	path        []decision
	bound       int
	expanded    int
	steps       int
	found       []decision
	scratch     *record.Sim // the leaves' run (see fork)
	memo        *memo       // the leaves' outcomes (see leaf)
	dominance   bool        // prune idle deliveries (see idle)
	dominated   int         // deliveries pruned by dominance
	stop        bool
	err         error
}

func newSearch(ctx context.Context, sys *record.System, t *record.Trace, externals []record.Event, cfg Config) (*search, error) {
	if cfg.Subsets && len(externals) > 254 {
		return nil, fmt.Errorf("optimal: --subsets handles at most 254 external events, the trace has %d", len(externals))
	}
	s := &search{ctx: ctx, cfg: cfg, sys: sys, setup: t.Setup(sys), want: t.Header.Violation,
		externals: externals, fp: fingerprint.New(nil), start: time.Now(),
		index: map[record.ActorID]int{}, seen: map[uint64]uint8{}, hseen: map[uint64]uint8{}, memo: newMemo()}
	sim, err := s.setup.NewSim()
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	s.members = sim.Members()
	if len(s.members) > 64 {
		return nil, fmt.Errorf("optimal: the search handles at most 64 members, the run has %d", len(s.members))
	}
	for i, m := range s.members {
		s.index[m] = i
	}
	s.cnt = make([]int32, (len(s.members)+1)*(len(s.members)+1))
	// Dominance needs an unordered network (on a FIFO link a message
	// that is consumed unblocks the next) and no external event that
	// waits on the network.
	s.dominance = !cfg.noDominance && sim.Semantics() == record.Unordered
	for _, e := range externals {
		if e.Kind == record.WaitQuiescence || e.Kind == record.WaitCondition {
			s.dominance = false
		}
	}
	return s, nil
}

// run deepens the bound until a schedule reproduces the violation.
func (s *search) run() (*Result, error) {
	// maxBound is the largest cost searched: deliveries, plus externals
	// with Subsets. The budget left is stored in a byte.
	maxBound := s.cfg.MaxDeliveries
	if s.cfg.Subsets {
		maxBound += len(s.externals)
		if s.cfg.TotalBound > 0 {
			maxBound = s.cfg.TotalBound
		}
	}
	maxBound = min(maxBound, 254)
	root, err := s.root()
	if err != nil {
		return nil, err
	}
	res := &Result{Searched: -1}
	for s.bound = 0; s.bound <= maxBound; s.bound++ {
		s.visit(root)
		if s.err != nil {
			return nil, s.err
		}
		if s.found != nil {
			tr, err := s.build(s.found)
			if err != nil {
				return nil, err
			}
			return s.finish(res, tr, true)
		}
		if s.stop {
			return s.finish(res, nil, false)
		}
		res.Searched = s.bound
		if s.cfg.Progress != nil {
			s.cfg.Progress(Progress{Bound: s.bound, States: len(s.seen), Expanded: s.expanded, Elapsed: time.Since(s.start)})
		}
	}
	return s.finish(res, nil, true)
}

func (s *search) finish(res *Result, tr *record.Trace, exhausted bool) (*Result, error) {
	res.Trace, res.Exhausted = tr, exhausted
	if tr != nil {
		res.Deliveries, res.Externals = tr.Header.Deliveries, tr.Header.Externals
	}
	res.States, res.Expanded, res.Steps = len(s.seen), s.expanded, s.steps
	res.Plain = s.cfg.plain
	res.Seconds = time.Since(s.start).Seconds()
	return res, nil
}

// root is the state before any event.
func (s *search) root() (*frame, error) {
	sim, err := s.setup.NewSim()
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	sim.DropLog() // the path is the record (see build)
	n := len(s.members)
	f := &frame{sim: sim, kept: !s.cfg.Subsets, hist: make([]uint64, n), ah: make([]uint64, n)}
	for i := range n {
		f.ah[i] = s.actorHash(sim, i)
	}
	f.cut = s.cutHash(sim)
	return f, nil
}

// visit expands f unless it violates, halted, or was expanded with at
// least as much budget left.
func (s *search) visit(f *frame) {
	if s.stop || s.found != nil {
		return
	}
	if s.ctx.Err() != nil {
		s.stop = true
		return
	}
	v := f.sim.Check()
	if !s.cfg.plain {
		if clock, network := f.sim.Observed(); clock || network {
			s.fail(errObserved)
			return
		}
	}
	if v != nil {
		if v.Same(s.want) {
			s.found = append([]decision(nil), s.path...)
			return
		}
		if f.sim.Halted() != nil {
			return // another panic: the run cannot go on
		}
	}
	left := s.bound - f.cost
	if left == 0 && (s.cfg.Subsets || f.ext == len(s.externals)) {
		// Every step left costs one (with Subsets, only leaving
		// external events out is free, and that changes no actor): the
		// check above was this state's last chance, so it is neither
		// hashed nor remembered.
		return
	}
	s.learn(f)
	ak := s.actorsKey(f)
	key := ak + s.pendingHash(f.sim)
	if old, ok := s.seen[key]; ok && int(old) > left {
		return
	}
	if len(s.seen) >= s.cfg.MaxStates {
		s.stop = true
		return
	}
	s.seen[key] = uint8(left + 1)
	f.ak = ak
	s.expanded++
	s.expand(f, left)
}

// expand visits f's successors: the next external event (applied or, with
// Subsets, left out) and the deliveries.
func (s *search) expand(f *frame, left int) {
	if f.ext < len(s.externals) {
		e := &s.externals[f.ext]
		cost := 0
		if s.cfg.Subsets {
			cost = 1
		}
		if !f.kept {
			// Decide at once whether the next external event happens.
			s.child(f, decision{kind: decSkip}, nil)
			if cost <= left {
				s.child(f, decision{kind: decKeep}, nil)
			}
			return
		}
		if cost <= left {
			s.child(f, decision{kind: decApply}, e)
		}
		if e.Kind == record.Send || e.Kind == record.WaitQuiescence || e.Kind == record.WaitCondition {
			return // commutes with every delivery: never after one
		}
	}
	if left < 1 {
		return
	}
	// A delivery from here is the last step of its schedule: only checked.
	leaf := left == 1 && (s.cfg.Subsets || f.ext == len(s.externals))
	for _, p := range f.sim.Enabled(nil) {
		if s.stop || s.found != nil {
			return
		}
		if !s.cfg.noCommute {
			// The commutation filter: the history the step leads to.
			a := s.index[p.To]
			hk := s.histKey(f, a, mix(f.hist[a], s.ckey[p.ID], uint64(f.ext)))
			if old, ok := s.hseen[hk]; ok && int(old) > left-1 {
				continue
			}
			if len(s.hseen) >= s.cfg.MaxStates {
				// Only a filter: forgetting it costs steps, not soundness.
				clear(s.hseen)
			}
			s.hseen[hk] = uint8(left)
		}
		if leaf && !s.cfg.noMemo {
			s.leaf(f, p)
			continue
		}
		if s.knownIdle(f, &p) {
			s.dominated++
			continue
		}
		s.child(f, decision{kind: decDeliver, id: p.ID}, nil)
	}
}

// child takes decision d from f (e is the external event to apply) and
// visits the state it leads to.
func (s *search) child(f *frame, d decision, e *record.Event) {
	c := *f
	switch d.kind {
	case decSkip:
		c.dec = mix(c.dec, uint64(c.ext)*2, 0x5c)
		c.ext++
		c.kept = false
	case decKeep:
		c.kept = true
	case decApply:
		s.steps++
		leaf := s.cfg.Subsets && s.bound-f.cost == 1
		c.sim = s.fork(f.sim, leaf)
		if err := c.sim.Apply(*e); err != nil {
			s.fail(fmt.Errorf("optimal: external event %d (%s): %w", c.ext, e, err))
			return
		}
		if s.cfg.Subsets {
			c.cost++
		}
		c.dec = mix(c.dec, uint64(c.ext)*2+1, 0x5c)
		switch {
		case leaf:
			// Only checked (see visit): nothing to hash.
		case e.Kind == record.Start || e.Kind == record.Kill || e.Kind == record.Restart:
			s.touch(&c, s.index[e.Actor], uint64(e.Kind)+0x9e37)
		case e.Kind == record.Partition || e.Kind == record.Heal:
			c.cut = s.cutHash(c.sim)
		}
		c.ext++
		c.kept = !s.cfg.Subsets
	case decDeliver:
		s.steps++
		leaf := s.bound-f.cost == 1 && (s.cfg.Subsets || f.ext == len(s.externals))
		c.sim = s.fork(f.sim, leaf)
		p, _ := c.sim.Pending(d.id)
		a := s.index[p.To]
		if err := c.sim.Deliver(d.id); err != nil {
			s.fail(fmt.Errorf("optimal: delivering %s: %w", record.FormatMessage(p.Msg), err))
			return
		}
		c.cost++
		if !leaf {
			s.touch(&c, a, s.ckey[d.id])
			if s.dominance && s.idle(f, &c, a, transKey(f, a, s.ckey[d.id])) {
				s.dominated++
				return
			}
		}
	}
	s.path = append(s.path, d)
	s.visit(&c)
	s.path = s.path[:len(s.path)-1]
}

// fork forks sim for a child; a leaf (a state only checked for a
// violation, see visit) is made in the search's scratch run.
func (s *search) fork(sim *record.Sim, leaf bool) *record.Sim {
	if !leaf {
		return sim.Fork()
	}
	s.scratch = sim.ForkInto(s.scratch)
	return s.scratch
}

// fail stops the search on an error of the system under test (an external
// event it rejects, a message it cannot deliver).
func (s *search) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.stop = true
}

// learn computes the content keys of the messages f's last step sent.
// Message IDs along one path only grow, so one slice indexed by ID serves
// the whole walk: a sibling's messages reuse IDs above their parent's.
func (s *search) learn(f *frame) {
	top := f.maxID
	for _, p := range f.sim.InFlight() {
		if p.ID <= f.maxID {
			continue
		}
		for int(p.ID) >= len(s.ckey) {
			s.ckey = append(s.ckey, make([]uint64, len(s.ckey)+64)...)
		}
		s.ckey[p.ID] = s.contentKey(p.From, p.To, p.Timer, p.Msg)
		top = max(top, p.ID)
	}
	f.maxID = top
}

// touch records in c, a child sharing its parent's hash slices, that
// actor a took a step with key: its history, in a copy, and that its
// state hash is to be computed again (see hashes), which a state that is
// never expanded does not need.
func (s *search) touch(c *frame, a int, key uint64) {
	c.hist = slices.Clone(c.hist)
	c.hist[a] = mix(c.hist[a], key, uint64(c.ext))
	c.dirty |= 1 << a
}

// hashes brings f's actor state hashes up to date.
func (s *search) hashes(f *frame) {
	if f.dirty == 0 {
		return
	}
	f.ah = slices.Clone(f.ah)
	for a := range f.ah {
		if f.dirty&(1<<a) != 0 {
			f.ah[a] = s.actorHash(f.sim, a)
		}
	}
	f.dirty = 0
}
