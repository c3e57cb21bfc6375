package optimal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// decision is one step of a path through the search: apply the next
// external event, leave it out, decide to apply it later, deliver a
// message, or apply an inserted event (Config.Insert).
type decision struct {
	kind int8
	id   record.MsgID // the message delivered, or the index of the inserted event
}

const (
	decApply int8 = iota
	decSkip
	decKeep
	decDeliver
	decInsert
)

// frame is one state of the walk. Frames share their run and slices with
// their parent until they change them: a step forks the run and copies
// what it changes.
type frame struct {
	sim  *record.Sim
	cost int
	ext  int  // the next external event
	kept bool // Subsets: the next external event was decided to happen
	// inserted: the schedule applied one of Config.Insert.
	inserted bool
	// maxID is the largest message ID whose content key is known.
	maxID record.MsgID
	hist  []uint64 // per-actor history hashes (the commutation filter)
	ah    []uint64 // per-actor state hashes, valid unless marked in dirty
	dirty uint64   // actors that took a step since ah was computed
	ak    uint64   // the actors key (see actorsKey), once expanded
	cut   uint64   // hash of the cut links
	dec   uint64   // hash of the decisions on external events so far
}

// search is one run of Search: what its walkers share.
type search struct {
	ctx       context.Context
	cfg       Config
	sys       *record.System
	setup     record.Setup
	want      *record.Violation
	externals []record.Event
	// withInsert is externals followed by Config.Insert: from position
	// i, the events still to come of a state that inserted none yet.
	withInsert []record.Event
	prefix     []record.Event // run before the root (see SearchFrom)
	members    []record.ActorID
	index      map[record.ActorID]int
	start      time.Time
	dominance  bool // prune idle deliveries (see idle)
	// undelivered: prune states with more external messages pending
	// than budget left (see dominance.go).
	undelivered bool
	// lowerBound is the system's admissible lower bound on the cost left
	// (nil: none, or turned off); see visit.
	lowerBound func(record.Goal) int

	// seen maps a global state key to 1 + the largest remaining budget
	// the state was expanded with.
	seen *table
	// before counts the states of the tables dropped (see run).
	before int

	// halt stops every walker: a reproducer found, an error, the
	// context done or the table full; mu guards found and err.
	halt  atomic.Bool
	stop  bool // the search stopped before finishing (context, MaxStates)
	mu    sync.Mutex
	found []decision
	err   error
}

// walker walks part of the state space: the whole of it with one worker;
// with several, the top walker walks the states cheaper than a split
// cost and hands the states at that cost to the others (see run). Its
// tables are its own: the content keys along its path, the history filter
// and the memo are caches, and sharing them would only save steps.
type walker struct {
	*search
	fp        *fingerprint.Fingerprinter
	hseen     map[uint64]uint8 // history key -> 1 + the largest budget (the commutation filter)
	ckey      []uint64         // content key of a message by ID, along the current path
	cnt       []int32          // per-link scratch for pendingHash
	path      []decision
	bound     int
	scratch   *record.Sim // the leaves' run (see fork)
	memo      *memo       // the leaves' outcomes (see leaf)
	expanded  int
	steps     int
	dominated int // deliveries pruned by dominance
	pruned    int // states pruned for their undelivered external messages
	cut       int // states cut by the system's lower bound

	// The top walker of a parallel search sends the states of cost
	// split to work instead of visiting them.
	work  chan<- item
	split int
}

// item is a state handed to a worker, with the path that led there and
// the content keys of the messages on that path.
type item struct {
	f    frame
	path []decision
	ckey []uint64
}

func newSearch(ctx context.Context, sys *record.System, t *record.Trace, externals []record.Event, cfg Config) (*search, error) {
	if cfg.Subsets && len(externals) > 254 {
		return nil, fmt.Errorf("optimal: --subsets handles at most 254 external events, the trace has %d", len(externals))
	}
	s := &search{ctx: ctx, cfg: cfg, sys: sys, setup: t.Setup(sys), want: t.Header.Violation,
		externals: externals, start: time.Now(), index: map[record.ActorID]int{}, seen: newTable()}
	if len(cfg.Insert) > 0 {
		s.withInsert = append(slices.Clip(externals), cfg.Insert...)
	}
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
	// Dominance needs an unordered network (on a FIFO link a message
	// that is consumed unblocks the next) and no external event that
	// waits on the network.
	s.dominance = !cfg.noDominance && sim.Semantics() == record.Unordered
	for _, e := range externals {
		if e.Kind == record.WaitQuiescence || e.Kind == record.WaitCondition {
			s.dominance = false
		}
	}
	s.undelivered = s.dominance && cfg.Subsets
	if !cfg.NoLowerBound {
		s.lowerBound = sys.LowerBound
	}
	return s, nil
}

func (s *search) newWalker() *walker {
	n := len(s.members) + 1
	// ckey starts with room for ID 0, so a path that learned no message
	// yet can still be handed to a worker (see child).
	return &walker{search: s, fp: fingerprint.New(nil), hseen: map[uint64]uint8{}, cnt: make([]int32, n*n), memo: newMemo(),
		ckey: make([]uint64, 64)}
}

// maxHistory bounds each walker's history filter (it is emptied there).
const maxHistory = 8_000_000

// minSplitBound is the smallest bound a parallel search splits: below it
// a bound takes milliseconds. splitDepth is how far below the split cost
// a bound goes: the workers' pieces are the subtrees of that many steps.
const (
	minSplitBound = 10
	splitDepth    = 8
)

// run deepens the bound until a schedule reproduces the violation.
//
// With Config.Workers above one, a bound of at least minSplitBound is
// walked in parallel: the top walker walks the states of cost below
// bound-splitDepth and queues each state of that cost, in its order, for
// the workers, which walk them to the bound. They share the state table
// (a state expanded by one is not expanded again by another with less
// budget), so what one bound proves does not depend on the number of
// workers. Which reproducer is found first does; so a bound that finds
// one is walked again by one walker, with empty tables, and the first
// reproducer of that walk in its fixed order is the answer, whatever the
// number of workers.
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
	top := s.newWalker()
	root, err := top.root()
	if err != nil {
		return nil, err
	}
	// With several workers, the top walker only queues (it waits most of
	// the time) and Workers walkers walk.
	workers := []*walker{top}
	for range s.cfg.Workers {
		if s.cfg.Workers > 1 {
			workers = append(workers, s.newWalker())
		}
	}
	res := &Result{Searched: -1}
	// The states known and the steps of one walker after the last four
	// bounds (Config.Foresee).
	var known, spent [4]int
	leapt := false // Config.Leap skipped bounds: a reproducer found may not be the cheapest
	for bound := 0; bound <= maxBound; bound++ {
		if len(workers) > 1 && bound >= minSplitBound {
			s.parallel(workers, root, bound)
		} else {
			top.bound = bound
			top.visit(root)
		}
		if s.err != nil {
			return nil, s.err
		}
		if s.found != nil {
			// The answer is the first reproducer of one walker's walk
			// of this bound, with empty tables.
			first := s.found
			s.found = nil
			s.halt.Store(false)
			s.before += s.seen.len()
			s.seen = newTable()
			clear(top.hseen)
			top.bound = bound
			top.path = top.path[:0]
			top.visit(root)
			if s.err != nil {
				return nil, s.err
			}
			if s.found == nil {
				if !s.stop {
					return nil, errors.New("optimal: internal error: a bound's reproducer was not found again")
				}
				s.found = first // stopped: the first one found is as cheap
			}
			tr, err := s.build(s.found)
			if err != nil {
				return nil, err
			}
			return s.finish(res, workers, tr, !leapt)
		}
		if s.stop {
			return s.finish(res, workers, nil, false)
		}
		res.Searched = bound
		if s.cfg.Progress != nil {
			s.cfg.Progress(Progress{Bound: bound, States: s.seen.len(), Expanded: expanded(workers), Elapsed: time.Since(s.start)})
		}
		known = [4]int{known[1], known[2], known[3], s.seen.len()}
		spent = [4]int{spent[1], spent[2], spent[3], top.steps}
		if s.cfg.Foresee && bound < maxBound && (beyond(known, maxBound-bound, s.cfg.MaxStates) ||
			len(workers) == 1 && s.cfg.MaxSteps > 0 && beyond(spent, maxBound-bound, s.cfg.MaxSteps)) {
			return s.finish(res, workers, nil, false)
		}
		if s.cfg.Leap && bound < maxBound-1 && fits(known, maxBound-bound, s.cfg.MaxStates) &&
			(len(workers) > 1 || s.cfg.MaxSteps == 0 || fits(spent, maxBound-bound, s.cfg.MaxSteps)) {
			leapt = true
			bound = maxBound - 1 // the loop walks maxBound next
		}
	}
	return s.finish(res, workers, nil, true)
}

// beyond reports whether bounds more bounds, each adding to a count
// growth times what the one before added, would take it past most
// (Config.Foresee). known is the count after the last four bounds; growth
// is the geometric mean of the last two bounds' growths (one bound's alone
// is noisy: Paxos's moves between 1.4 and 1.7 from bound to bound). It
// looks once the count is a 64th of most: earlier bounds grow by factors
// the lower bound and the first events distort.
func beyond(known [4]int, bounds, most int) bool {
	past, _ := forecast(known, bounds, most)
	return past
}

// fits reports whether the forecast has what it needs and keeps bounds
// more bounds within most (Config.Leap).
func fits(known [4]int, bounds, most int) bool {
	past, ok := forecast(known, bounds, most)
	return ok && !past
}

// forecast extrapolates bounds more bounds as beyond says and reports
// whether they take the count past most; ok is false (and past with it)
// when the count is below a 64th of most or its growth is not one.
func forecast(known [4]int, bounds, most int) (past, ok bool) {
	last := known[3]
	a, b, c := float64(known[1]-known[0]), float64(known[2]-known[1]), float64(known[3]-known[2])
	if last < most/foreseeFrom || a <= 0 || b <= 0 || c <= b || c <= a {
		return false, false
	}
	growth, added, total := math.Sqrt(c/a), c, float64(last)
	for range bounds {
		added *= growth
		if total += added; total > float64(most) {
			return true, true
		}
	}
	return false, true
}

// foreseeFrom: Config.Foresee looks once a count is 1/foreseeFrom of its cap.
const foreseeFrom = 64

// parallel walks one bound with the walkers: the first queues, the
// others (and then the first) walk what was queued.
func (s *search) parallel(ws []*walker, root *frame, bound int) {
	work := make(chan item, 4*len(ws))
	var wg sync.WaitGroup
	for _, w := range ws[1:] {
		w.bound = bound
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				if s.halt.Load() {
					continue
				}
				w.path = append(w.path[:0], it.path...)
				w.ckey = append(w.ckey[:0], it.ckey...)
				f := it.f
				w.visit(&f)
			}
		}()
	}
	top := ws[0]
	top.bound, top.work, top.split = bound, work, bound-splitDepth
	top.visit(root)
	top.work = nil
	close(work)
	wg.Wait()
}

func expanded(ws []*walker) int {
	n := 0
	for _, w := range ws {
		n += w.expanded
	}
	return n
}

func (s *search) finish(res *Result, ws []*walker, tr *record.Trace, exhausted bool) (*Result, error) {
	res.Trace, res.Exhausted = tr, exhausted
	if tr != nil {
		res.Deliveries, res.Externals = tr.Header.Deliveries, tr.Header.Externals
	}
	res.States = s.before + s.seen.len()
	for _, w := range ws {
		res.Expanded += w.expanded
		res.Steps += w.steps
		res.BoundCuts += w.cut
	}
	res.Plain = s.cfg.plain
	res.LowerBound = s.lowerBound != nil
	res.Seconds = time.Since(s.start).Seconds()
	return res, nil
}

// root is the state before any event.
func (s *walker) root() (*frame, error) {
	sim, err := s.newSim()
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
func (s *walker) visit(f *frame) {
	if s.halt.Load() {
		return
	}
	if s.ctx.Err() != nil || s.cfg.MaxSteps > 0 && s.steps >= s.cfg.MaxSteps {
		s.stopEarly()
		return
	}
	if err := f.sim.ForkError(); err != nil {
		s.fail(fmt.Errorf("optimal: %w", err))
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
			s.reproduced(nil)
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
	if s.lowerBound != nil {
		// IDA*: a state from which every reproducer costs more than the
		// budget left is not expanded. The bound is a function of the
		// state (the actors and the messages in flight), as the tables'
		// keys are, so a state cut here is cut again wherever it is met
		// with no more budget.
		future := s.externals[f.ext:]
		if !f.inserted && len(s.cfg.Insert) > 0 {
			future = slices.Clip(s.withInsert[f.ext:])
		}
		h := s.lowerBound(record.Goal{View: f.sim.View(), InFlight: f.sim.InFlight(), Want: s.want,
			Future: future, CountExternals: s.cfg.Subsets})
		if h > left {
			s.cut++
			return
		}
	}
	s.learn(f)
	ak := s.actorsKey(f)
	pk, ext := s.pendingHash(f.sim)
	if s.undelivered && ext > left {
		// Each external message pending costs a delivery (see
		// undelivered in dominance.go).
		s.pruned++
		return
	}
	key := ak + pk
	if !s.seen.claim(key, left) {
		return
	}
	if s.seen.len() >= s.cfg.MaxStates {
		s.stopEarly()
		return
	}
	f.ak = ak
	s.expanded++
	s.expand(f, left)
}

// expand visits f's successors: the next external event (applied or, with
// Subsets, left out) and the deliveries.
func (s *walker) expand(f *frame, left int) {
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
		if cost <= left && s.ends(left, *e) {
			s.child(f, decision{kind: decApply}, e)
		}
		if e.Kind == record.Send || e.Kind == record.WaitQuiescence || e.Kind == record.WaitCondition {
			return // commutes with every delivery: never after one
		}
	}
	if left < 1 {
		return
	}
	if !f.inserted {
		for k := range s.cfg.Insert {
			if s.ends(left, s.cfg.Insert[k]) {
				s.child(f, decision{kind: decInsert, id: record.MsgID(k)}, &s.cfg.Insert[k])
			}
		}
	}
	// A delivery from here is the last step of its schedule: only checked.
	leaf := left == 1 && (s.cfg.Subsets || f.ext == len(s.externals))
	for _, p := range f.sim.Enabled(nil) {
		if s.halt.Load() {
			return
		}
		if !s.ends(left, record.Event{Kind: record.Deliver, To: p.To, Timer: p.Timer, Msg: p.Msg}) {
			continue
		}
		if !s.cfg.noCommute {
			// The commutation filter: the history the step leads to.
			a := s.index[p.To]
			hk := s.histKey(f, a, mix(f.hist[a], s.ckey[p.ID], f.epoch()))
			if old, ok := s.hseen[hk]; ok && int(old) > left-1 {
				continue
			}
			if len(s.hseen) >= min(s.cfg.MaxStates, maxHistory) {
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
func (s *walker) child(f *frame, d decision, e *record.Event) {
	c := *f
	switch d.kind {
	case decSkip:
		c.dec = mix(c.dec, uint64(c.ext)*2, 0x5c)
		c.ext++
		c.kept = false
	case decKeep:
		c.kept = true
	case decApply, decInsert:
		s.steps++
		leaf := s.cfg.Subsets && s.bound-f.cost == 1
		c.sim = s.fork(f.sim, leaf)
		if err := c.sim.Apply(*e); err != nil {
			if d.kind == decInsert {
				return // an inserted event the state rejects is not a step
			}
			s.fail(fmt.Errorf("optimal: external event %d (%s): %w", c.ext, e, err))
			return
		}
		if s.cfg.Subsets {
			c.cost++
		}
		if d.kind == decInsert {
			c.inserted = true
			c.dec = mix(c.dec, uint64(d.id)+1, 0x1e5e+uint64(c.ext))
		} else {
			c.dec = mix(c.dec, uint64(c.ext)*2+1, 0x5c)
		}
		switch {
		case leaf:
			// Only checked (see visit): nothing to hash.
		case e.Kind == record.Start || e.Kind == record.Kill || e.Kind == record.Restart:
			s.touch(&c, s.index[e.Actor], uint64(e.Kind)+0x9e37)
		case e.Kind == record.Partition || e.Kind == record.Heal:
			c.cut = s.cutHash(c.sim)
		}
		if d.kind == decApply {
			c.ext++
			c.kept = !s.cfg.Subsets
		}
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
	if s.work != nil && c.cost == s.split {
		s.work <- item{f: c, path: slices.Clone(s.path), ckey: slices.Clone(s.ckey[:c.maxID+1])}
	} else {
		s.visit(&c)
	}
	s.path = s.path[:len(s.path)-1]
}

// ends reports whether a step to e may be taken with left budget left:
// a step that spends the last of it must be like Config.Last.
func (s *search) ends(left int, e record.Event) bool {
	l := s.cfg.Last
	if l == nil || left > 1 {
		return true
	}
	if e.Kind == record.Deliver {
		return l.Kind == record.Deliver && e.To == l.To && e.Timer == l.Timer && record.TypeName(e.Msg) == record.TypeName(l.Msg)
	}
	return e.Kind == l.Kind && e.Actor == l.Actor && e.To == l.To && record.TypeName(e.Msg) == record.TypeName(l.Msg)
}

// fork forks sim for a child; a leaf (a state only checked for a
// violation, see visit) is made in the search's scratch run.
func (s *walker) fork(sim *record.Sim, leaf bool) *record.Sim {
	if !leaf {
		return sim.Fork()
	}
	s.scratch = sim.ForkInto(s.scratch)
	return s.scratch
}

// fail stops the search on an error of the system under test (an external
// event it rejects, a message it cannot deliver).
func (s *search) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.halt.Store(true)
}

// stopEarly stops the search before it finished (the context, MaxStates).
func (s *search) stopEarly() {
	s.mu.Lock()
	s.stop = true
	s.mu.Unlock()
	s.halt.Store(true)
}

// reproduced records that the walker's path, then last if not nil,
// reproduces the violation, and stops the search.
func (s *walker) reproduced(last *decision) {
	p := slices.Clone(s.path)
	if last != nil {
		p = append(p, *last)
	}
	s.mu.Lock()
	if s.found == nil {
		s.found = p
	}
	s.mu.Unlock()
	s.halt.Store(true)
}

// learn computes the content keys of the messages f's last step sent.
// Message IDs along one path only grow, so one slice indexed by ID serves
// the whole walk: a sibling's messages reuse IDs above their parent's.
func (s *walker) learn(f *frame) {
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
func (s *walker) touch(c *frame, a int, key uint64) {
	c.hist = slices.Clone(c.hist)
	c.hist[a] = mix(c.hist[a], key, c.epoch())
	c.dirty |= 1 << a
}

// epoch names where f is among the external events, for the actors'
// histories: a step before an external event and the same step after it do
// not commute (a start or restart drops the messages sent to its actor
// before it; a send adds one), so their histories differ. The inserted
// event (Config.Insert) counts as one, though it does not advance f.ext.
func (f *frame) epoch() uint64 { return uint64(f.ext)*2 + b2u(f.inserted) }

// hashes brings f's actor state hashes up to date.
func (s *walker) hashes(f *frame) {
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
