package optimal

import (
	"context"
	"fmt"
	"time"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The global-state search (Config.Global, Config.Subsets) is an iterative
// deepening depth-first search on the cost of a schedule: with a bound of
// B, a depth-first walk tries every schedule of cost at most B; the bound
// grows by one until a violation is found, so the first one found has the
// smallest cost, and a search stopped early has proved that nothing of cost
// up to the last finished bound reproduces the violation.
//
// The walk never replays a schedule: it forks the run of a state
// (record.Sim.Fork, which copies actors only when they next run) and takes
// one step in the fork, so a step costs one handler call plus hashing.
//
// States are identified by a hash of what the run is, not of how it got
// there: every actor's state (its value, walked field by field by
// reflection as message fingerprints are, its stable storage, its
// incarnation and its random source), whether it is running, the cut
// links, the pending messages (per link, in send order) and the next
// external event. A table remembers, for every state met, the largest
// remaining budget it was expanded with; a state met again with no more
// budget left is not expanded again, so schedules that reach the same
// global state (two orders of commuting deliveries, a vote that changes
// nothing) are expanded once per bound.
//
// Three reductions cut the number of steps taken, all sound:
//
//   - Commutation: deliveries to different actors commute, so the state a
//     schedule reaches is a function of every actor's local history (what
//     it received, in order, and how many external events came before
//     each). A second table keyed by that history filters a step before it
//     is taken: the order of commuting deliveries is then tried once, at
//     the cost of one hash, without forking or running a handler.
//   - Eager external messages: an external Send only adds a message to a
//     link from outside, so it commutes with every delivery; it is applied
//     as soon as it is the next external event, never after deliveries
//     that could have come later.
//   - Eager choices (Config.Subsets): leaving an external event out changes
//     nothing but which event comes next, so whether it happens is decided
//     as soon as it is the next external event.
//
// With Config.Subsets the search also chooses which external events happen:
// each one, in order, is applied or left out, and applying one costs as
// much as a delivery, so the first violation found has the fewest
// deliveries plus external events over every subsequence of the input's
// external events and every schedule of them: the optimum of the bug for
// those events, not only of their schedule. Without it every external event
// is applied, in order, at no cost, and the cost is the deliveries.
//
// The hash of an actor's value is only as good as its fields: an actor
// whose behaviour depends on something reflection cannot see (a function
// value, a channel, state outside the actor) must not use it.

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

// frame is one state of the walk.
type frame struct {
	sim  *record.Sim
	cost int
	ext  int  // the next external event
	kept bool // Subsets: the next external event was decided to happen
	// maxID is the largest message ID whose content key is known.
	maxID record.MsgID
	hist  []uint64 // per-actor history hashes (the commutation filter)
	ah    []uint64 // per-actor state hashes
	cut   uint64   // hash of the cut links
	dec   uint64   // hash of the decisions on external events so far
}

type gsearch struct {
	*searcher
	ctx   context.Context
	cfg   Config
	fp    *fingerprint.Fingerprinter
	index map[record.ActorID]int
	// seen and hseen map a global state key and a history key to 1 + the
	// largest remaining budget the state was expanded with.
	seen, hseen map[uint64]uint8
	ckey        []uint64 // content key of a message by ID, along the current path
	path        []decision
	cnt         []int32 // per-link scratch for pendingHash
	bound       int
	expanded    int
	steps       int
	found       []decision
	stop        bool
	err         error
}

func (s *searcher) runGlobal(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Subsets && len(s.externals) > 255 {
		return nil, fmt.Errorf("optimal: --subsets handles at most 255 external events, the trace has %d", len(s.externals))
	}
	g := &gsearch{searcher: s, ctx: ctx, cfg: cfg, fp: fingerprint.New(nil),
		index: map[record.ActorID]int{}, seen: map[uint64]uint8{}, hseen: map[uint64]uint8{}}
	for i, m := range s.members {
		g.index[m] = i
	}
	g.cnt = make([]int32, (len(s.members)+2)*(len(s.members)+2))
	// maxBound is the largest cost searched: deliveries, plus externals
	// with Subsets.
	maxBound := cfg.MaxDeliveries
	if cfg.Subsets {
		maxBound += len(s.externals)
		if cfg.TotalBound > 0 {
			maxBound = cfg.TotalBound
		}
	}
	maxBound = min(maxBound, 254)
	root, err := g.root()
	if err != nil {
		return nil, err
	}
	res := &Result{Searched: -1}
	for g.bound = 0; g.bound <= maxBound; g.bound++ {
		g.visit(root)
		if g.err != nil {
			return nil, g.err
		}
		if g.found != nil {
			tr, err := g.build(g.found)
			if err != nil {
				return nil, err
			}
			res.Searched = g.bound - 1
			return g.finishGlobal(res, tr, true)
		}
		if g.stop {
			return g.finishGlobal(res, nil, false)
		}
		res.Searched = g.bound
		if cfg.Progress != nil {
			cfg.Progress(Progress{Deliveries: g.bound, States: len(g.seen), Elapsed: time.Since(s.start)})
		}
	}
	return g.finishGlobal(res, nil, true)
}

func (g *gsearch) finishGlobal(res *Result, tr *record.Trace, exhausted bool) (*Result, error) {
	res.States = len(g.seen)
	res.Expanded = g.expanded
	res.Steps = g.steps
	return g.finish(res, tr, exhausted)
}

// root is the state before any event.
func (g *gsearch) root() (*frame, error) {
	sim, err := g.setup.NewSim()
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	sim.DropLog() // the path is the record (see build)
	n := len(g.members)
	f := &frame{sim: sim, kept: !g.cfg.Subsets, hist: make([]uint64, n), ah: make([]uint64, n)}
	for i := range n {
		f.ah[i] = g.actorHash(sim, i)
	}
	f.cut = g.cutHash(sim)
	return f, nil
}

// visit expands f unless it violates, halted, or was expanded with at
// least as much budget left.
func (g *gsearch) visit(f *frame) {
	if g.stop || g.found != nil {
		return
	}
	if g.ctx.Err() != nil {
		g.stop = true
		return
	}
	if v := f.sim.Check(); v != nil {
		if v.Same(g.want) {
			g.found = append([]decision(nil), g.path...)
			return
		}
		if f.sim.Halted() != nil {
			return // another panic: the run cannot go on
		}
	}
	left := g.bound - f.cost
	key := g.globalKey(f)
	if old, ok := g.seen[key]; ok && int(old) > left {
		return
	}
	if len(g.seen) >= g.cfg.MaxStates {
		g.stop = true
		return
	}
	g.seen[key] = uint8(left + 1)
	g.expanded++
	if f.ext < len(g.externals) {
		e := &g.externals[f.ext]
		cost := 0
		if g.cfg.Subsets {
			cost = 1
		}
		if !f.kept {
			// Decide at once whether the next external event happens.
			g.child(f, decision{kind: decSkip}, nil)
			if f.cost+cost <= g.bound {
				g.child(f, decision{kind: decKeep}, nil)
			}
			return
		}
		if f.cost+cost <= g.bound {
			g.child(f, decision{kind: decApply}, e)
		}
		if e.Kind == record.Send || e.Kind == record.WaitQuiescence || e.Kind == record.WaitCondition {
			return // commutes with every delivery: never after one
		}
	}
	if f.cost+1 > g.bound {
		return
	}
	for _, p := range f.sim.Enabled(nil) {
		if g.stop || g.found != nil {
			return
		}
		// The commutation filter: the history the step leads to.
		a := g.index[p.To]
		nh := mix(f.hist[a], g.ckey[p.ID], uint64(f.ext))
		hk := g.histKey(f, a, nh)
		if old, ok := g.hseen[hk]; ok && int(old) > left-1 {
			continue
		}
		g.hseen[hk] = uint8(left)
		g.child(f, decision{kind: decDeliver, id: p.ID}, nil)
	}
}

// child takes decision d from f (e is the external event to apply) and
// visits the state it leads to.
func (g *gsearch) child(f *frame, d decision, e *record.Event) {
	c := *f
	switch d.kind {
	case decSkip:
		c.dec = mix(c.dec, uint64(c.ext)*2, 0x5c)
		c.ext++
		c.kept = false
	case decKeep:
		c.kept = true
	case decApply:
		g.steps++
		c.sim = f.sim.Fork()
		if err := c.sim.Apply(*e); err != nil {
			g.fail(fmt.Errorf("optimal: external event %d (%s): %w", c.ext, e, err))
			return
		}
		if g.cfg.Subsets {
			c.cost++
		}
		c.dec = mix(c.dec, uint64(c.ext)*2+1, 0x5c)
		switch e.Kind {
		case record.Start, record.Kill, record.Restart:
			a := g.index[e.Actor]
			c.hist = clone(f.hist)
			c.hist[a] = mix(c.hist[a], uint64(e.Kind)+0x9e37, uint64(c.ext))
			c.ah = clone(f.ah)
			c.ah[a] = g.actorHash(c.sim, a)
		case record.Partition, record.Heal:
			c.cut = g.cutHash(c.sim)
		}
		c.ext++
		c.kept = !g.cfg.Subsets
		g.learn(&c)
	case decDeliver:
		g.steps++
		p, _ := f.sim.Pending(d.id)
		a := g.index[p.To]
		c.sim = f.sim.Fork()
		if err := c.sim.Deliver(d.id); err != nil {
			g.fail(fmt.Errorf("optimal: delivering %s: %w", record.FormatMessage(p.Msg), err))
			return
		}
		c.cost++
		c.hist = clone(f.hist)
		c.hist[a] = mix(c.hist[a], g.ckey[d.id], uint64(c.ext))
		c.ah = clone(f.ah)
		c.ah[a] = g.actorHash(c.sim, a)
		g.learn(&c)
	}
	g.path = append(g.path, d)
	g.visit(&c)
	g.path = g.path[:len(g.path)-1]
}

// fail stops the search on an error of the system under test (an external
// event it rejects, a message it cannot deliver).
func (g *gsearch) fail(err error) {
	if g.err == nil {
		g.err = err
	}
	g.stop = true
}

// learn computes the content keys of the messages f's last step sent.
func (g *gsearch) learn(f *frame) {
	top := f.maxID
	for _, p := range f.sim.InFlight() {
		if p.ID <= f.maxID {
			continue
		}
		for int(p.ID) >= len(g.ckey) {
			g.ckey = append(g.ckey, make([]uint64, len(g.ckey)+64)...)
		}
		g.ckey[p.ID] = g.contentKey(&p)
		top = max(top, p.ID)
	}
	f.maxID = top
}

// contentKey identifies a pending message by its link and what it is, not
// by its ID: sender, receiver, timer key and fingerprint (type and every
// field).
func (g *gsearch) contentKey(p *record.Pending) uint64 {
	h := hashing.String(hashing.Seed, string(p.From))
	h = hashing.String(h, string(p.To))
	h = hashing.String(h, p.Timer)
	return hashing.Finish(hashing.Mix(h, g.fp.Of(p.Msg).Full))
}

// histKey is f's history key with actor a's history replaced by h.
func (g *gsearch) histKey(f *frame, a int, h uint64) uint64 {
	k := finish(uint64(f.ext)*2+b2u(f.kept)) ^ f.dec
	for i, x := range f.hist {
		if i == a {
			x = h
		}
		k += actorTerm(i, x)
	}
	return k
}

// globalKey hashes f's global state: every member's state, the cut links,
// the pending messages per link in send order, and the next external
// event.
func (g *gsearch) globalKey(f *frame) uint64 {
	k := finish(uint64(f.ext)*2+b2u(f.kept)+0x3c6ef372fe94f82b) + f.cut
	for i, h := range f.ah {
		k += actorTerm(i, h)
	}
	return k + g.pendingHash(f.sim)
}

// pendingHash combines the pending messages, each by its content key and
// its place in its link's queue (timers are one link each).
func (g *gsearch) pendingHash(sim *record.Sim) uint64 {
	clear(g.cnt)
	n := len(g.members) + 1
	var k uint64
	for _, p := range sim.InFlight() {
		pos := int32(0)
		if p.Timer == "" {
			l := g.slot(p.From)*n + g.slot(p.To)
			pos = g.cnt[l]
			g.cnt[l]++
		}
		k += finish(hashing.Mix(g.ckey[p.ID], uint64(pos)))
	}
	return k
}

// slot is the position of an actor among the members, len(members) for
// External.
func (g *gsearch) slot(id record.ActorID) int {
	if i, ok := g.index[id]; ok {
		return i
	}
	return len(g.members)
}

// actorHash hashes member i's state: running, its value, its storage, its
// incarnation and its random source.
func (g *gsearch) actorHash(sim *record.Sim, i int) uint64 {
	st := sim.View().StateOf(g.members[i])
	h := finish(uint64(i) + 0x51)
	if st.Running {
		h = mix(h, 1, 0)
		h = mix(h, g.fp.Of(st.Actor).Full, 1)
	}
	h = mix(h, g.fp.Of(st.Storage).Full, 2)
	h = mix(h, uint64(st.Incarnation), 3)
	if st.Rand != nil {
		h = mix(h, g.fp.Of(st.Rand).Full, 4)
	}
	return h
}

// cutHash hashes the cut links.
func (g *gsearch) cutHash(sim *record.Sim) uint64 {
	v := sim.View()
	var k uint64
	for i, a := range g.members {
		for j, b := range g.members {
			if v.Partitioned(a, b) {
				k += finish(uint64(i*len(g.members)+j) + 0x77)
			}
		}
	}
	return k
}

// build follows the decisions found through a record.Driver into a trace
// and verifies it by exact replay.
func (g *gsearch) build(path []decision) (*record.Trace, error) {
	d, err := record.NewDriver(g.setup, nil, record.Follow{CheckEvery: record.CheckAtEnd})
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	ext := 0
	for _, x := range path {
		switch x.kind {
		case decApply:
			if _, err := d.Apply(g.ctx, g.externals[ext]); err != nil {
				return nil, fmt.Errorf("optimal: external event %d (%s): %w", ext, g.externals[ext], err)
			}
			ext++
		case decSkip:
			ext++
		case decDeliver:
			if _, err := d.Deliver(g.ctx, x.id); err != nil {
				return nil, fmt.Errorf("optimal: replaying the schedule found: %w", err)
			}
		}
	}
	sim := d.Sim()
	v := sim.Check()
	if v == nil || !v.Same(g.want) {
		return nil, fmt.Errorf("optimal: internal error: the schedule found does not reproduce %s", g.want.Fingerprint)
	}
	tr := sim.Trace(v)
	tr.Header.Note = fmt.Sprintf("optimal: smallest schedule found by the global-state search (%d deliveries, %d externals)", sim.NumDeliveries(), sim.NumExternals())
	r, err := replay.Run(g.ctx, g.sys, tr)
	if err != nil {
		return nil, fmt.Errorf("optimal: verifying the result: %w", err)
	}
	if !r.Reproduced {
		return nil, fmt.Errorf("optimal: the result does not replay: %v", r.Divergence)
	}
	return tr, nil
}

// finish scrambles x (internal/hashing's Finish after one round).
func finish(x uint64) uint64 { return hashing.Finish(hashing.Mix(hashing.Seed, x)) }

func clone(h []uint64) []uint64 { return append([]uint64(nil), h...) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
