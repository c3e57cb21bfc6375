// Package dpor checks whether a candidate schedule still triggers a
// violation, exploring the schedules around it in a prioritized order.
//
// Minimization (package minimize) proposes candidates: the failing trace with
// some external events or deliveries removed. A candidate is a Plan: the
// events of the original schedule that are kept, in their original order.
// Its messages are matched, not replayed by ID, because a modified run sends
// different messages (DEMi paper §3.2):
//
//   - STSSched (the first schedule of every check): external events are
//     injected as they come; for a delivery step, the first enabled pending
//     message with the same sender, receiver and fingerprint is delivered.
//     A step with no such message is skipped ("absent"); pending messages
//     that match no step are never delivered ("unexpected"). A Wildcard step
//     prefers the message with the same fingerprint and otherwise takes the
//     newest of the same type (the clock-clustering stage's wildcards; under
//     FIFO only a queue's head can match).
//   - Type Fingerprints with Backtracks (TFB, Algorithm 1): while STSSched
//     delivers a message m, every other enabled message to the same receiver
//     (a co-enabled, dependent delivery: deliveries to different actors
//     commute, and Enabled already respects the network's FIFO order) whose
//     type equals m's but whose fingerprint differs becomes a backtrack
//     point. Backtracks wait in a priority queue (Order: by default fewest
//     deviations from the guide first, then the earliest step), not on
//     DPOR's depth-first stack; running one replays the exact prefix,
//     delivers the alternative instead of m, and continues with STSSched on
//     the rest of the plan. Every executed prefix goes into an explored
//     set, so no schedule runs twice. A check stops at the first schedule
//     that reproduces the violation, or after its schedule budget.
//   - Broad (plain DPOR's other backtrack points): co-enabled dependent
//     messages of other types too. They rank after every type-matching
//     backtrack of the same deviation count, and they are recorded within
//     a room of their own, so they never take the place of a
//     type-matching one (the paper's priority: type matches first).
//   - NoDiverge (the paper's §6 baseline): TFB, with every schedule
//     aborted as soon as a delivery makes a state transition the original
//     run never made (same receiver, message fingerprint and fingerprints of
//     the messages it sends). With a budget of one schedule it is STSSched
//     with aborts.
//
// The invariant is checked after every event and a schedule stops at the
// first violation with the target fingerprint; a schedule's own recorded
// events are then the new trace, exact and replayable by construction.
//
// A Checker does not re-execute what it ran before: it keeps snapshots
// (record.Driver.Fork) of its last check's first schedule at a bounded
// number of positions, and a check whose plan agrees with that one up to
// some step starts its first schedule, and its backtracks, from the latest
// snapshot before it (fork.go). The outcome is exactly a full run's; a
// system whose actors cannot be copied (record.Sim.ForkError) is found out
// and run in full; Config.FullRuns turns forking off.
package dpor

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
)

// Mode selects the exploration strategy of a check.
type Mode uint8

// The strategies.
const (
	STS       Mode = iota // the single STSSched schedule
	TFB                   // STSSched, then type-fingerprint backtracks
	NoDiverge             // TFB, every schedule aborted on any unobserved transition
)

// Order is the order in which a check runs its backtracks, among those of
// the same kind (type-matching before Broad ones).
type Order uint8

// The orders. DEMi's published implementation defaulted to the deepest
// backtrack first and offered a distance order; the DPOR study of
// demi-eval (docs/evaluation.md) measures all three.
const (
	// Earliest: fewest deviations from the guide first, then the
	// earliest step.
	Earliest Order = iota
	// Deepest: fewest deviations first, then the latest step.
	Deepest
	// Distance: smallest distance from the guide first (misordered pairs
	// plus new events, as DEMi's artifact), then the earliest step. A
	// backtrack that delivers, at plan step k, the message a later step j
	// would have matched exactly moves it over j-k steps (j-k misordered
	// pairs); one that matches no later step is a new event (1).
	Distance
)

func (o Order) String() string {
	switch o {
	case Earliest:
		return "earliest"
	case Deepest:
		return "deepest"
	case Distance:
		return "distance"
	}
	return fmt.Sprintf("order(%d)", o)
}

// ParseOrder returns the order named s ("earliest", "deepest",
// "distance").
func ParseOrder(s string) (Order, error) {
	for o := Earliest; o <= Distance; o++ {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("dpor: unknown backtrack order %q (want earliest, deepest or distance)", s)
}

func (m Mode) String() string {
	switch m {
	case STS:
		return "sts"
	case TFB:
		return "tfb"
	case NoDiverge:
		return "nodiverge"
	}
	return fmt.Sprintf("mode(%d)", m)
}

// Step is one event of a plan: an external event to inject, or a delivery
// to match.
type Step struct {
	Event record.Event
	// FP is the fingerprint of a delivery's message.
	FP fingerprint.FP
	// Wildcard lets the step match, when no pending message has its
	// fingerprint, the newest one of the same type between the same
	// sender and receiver.
	Wildcard bool
	// Reroute lets the step, when nothing on its own link matches, take a
	// deliverable message of the same type to the same receiver from
	// another sender (another leader's), or else from the same sender to
	// another receiver: the route a removal left open to another actor.
	Reroute bool
	// Flush makes the step, under FIFO, deliver the head of its link's
	// queue when the step's own message (its full fingerprint) waits
	// behind it, or when the head is not of the step's type but a message
	// of that type waits behind it (what the next step on the link
	// needs); it is skipped otherwise. A move that plans a round where the
	// trace had none puts flush steps before its deliveries: the new
	// round's messages share their links with older ones the trace never
	// delivered (an older request of the step's type, say).
	Flush bool
}

// Plan is a candidate schedule: the kept events of a trace, in order.
type Plan []Step

// FromEvents builds a plan of every event, fingerprinting deliveries.
func FromEvents(fp *fingerprint.Fingerprinter, events []record.Event) Plan {
	p := make(Plan, len(events))
	for i, e := range events {
		p[i].Event = e
		if e.Kind == record.Deliver {
			p[i].FP = fp.Of(e.Msg)
		}
	}
	return p
}

// Config describes the system and the violation a Checker looks for.
type Config struct {
	System  *record.System
	Options record.Options
	Seed    uint64
	// Target is the violation fingerprint to reproduce.
	Target string
	// Also are other fingerprints a check stops at as at Target (the
	// trace found then records that violation): a caller that can map
	// them onto Target (record.Symmetry.Images) lists them.
	Also []string
	Mode Mode
	// MaxSchedules bounds the schedules of one check (TFB); 0 means 1.
	MaxSchedules int
	// Fingerprint is an optional user message fingerprint.
	Fingerprint fingerprint.Func
	// Allowed are the state transitions a NoDiverge schedule may make.
	Allowed *Transitions
	// Broad also sets backtrack points for co-enabled dependent messages of
	// other types (plain DPOR), explored after the type-matching ones of
	// the same deviation count: the fallback for when budget remains.
	Broad bool
	// Order is the order of the backtracks (default Earliest).
	Order Order
	// FullRuns runs every schedule from the start, never from a snapshot
	// of an earlier check (fork.go): the outcomes are the same, only
	// slower. Tests and benchmarks compare the two.
	FullRuns bool
}

// Result is the outcome of a check.
type Result struct {
	// Trace is the reproducing schedule (its header holds the violation),
	// or nil.
	Trace *record.Trace
	// Schedules is the number of schedules executed.
	Schedules int
}

// Checker runs checks. It reuses its buffers between checks and is not safe
// for concurrent use; give each goroutine its own.
type Checker struct {
	cfg    Config
	fp     *fingerprint.Fingerprinter
	events []record.Event // the schedule of the check under way (see check)
	heads  []int64        // the FIFO queue heads a scan has met, by slots (queueKey)
	// room is how many backtracks of each kind (type-matching, Broad) a
	// schedule may still record under the Earliest order: the queue pops
	// fewest deviations first, then earliest, so a schedule's first
	// backtracks of a kind are the only ones the remaining budget can
	// reach. Other orders record every backtrack.
	room     int
	fps      []fpSlot
	explored map[uint64]struct{}
	queue    backtrackQueue
	seen     map[altKey]struct{}
	gen      uint32
	forks    forks
	also     []*record.Violation // cfg.Also
}

type fpSlot struct {
	gen uint32
	fp  fingerprint.FP
}

// New returns a Checker for cfg.
func New(cfg Config) (*Checker, error) {
	if cfg.System == nil {
		return nil, errors.New("dpor: no system")
	}
	if cfg.Target == "" {
		return nil, errors.New("dpor: no target violation fingerprint")
	}
	if cfg.Mode == NoDiverge && cfg.Allowed == nil {
		return nil, errors.New("dpor: NoDiverge needs the allowed transitions")
	}
	if cfg.MaxSchedules < 1 {
		cfg.MaxSchedules = 1
	}
	c := &Checker{cfg: cfg, fp: fingerprint.For(cfg.System, cfg.Fingerprint),
		explored: map[uint64]struct{}{}, seen: map[altKey]struct{}{}, forks: forks{off: cfg.FullRuns}}
	for _, fp := range cfg.Also {
		c.also = append(c.also, record.Want(fp))
	}
	return c, nil
}

// Fingerprinter returns the checker's fingerprinter (for building plans on
// the same goroutine).
func (c *Checker) Fingerprinter() *fingerprint.Fingerprinter { return c.fp }

// SetMode changes the strategy of later checks. NoDiverge without the
// allowed transitions of the Config falls back to STS.
func (c *Checker) SetMode(m Mode) {
	if m == NoDiverge && c.cfg.Allowed == nil {
		m = STS
	}
	c.cfg.Mode = m
}

// SetBroad turns plain-DPOR backtracks of other types on or off.
func (c *Checker) SetBroad(b bool) { c.cfg.Broad = b }

// SetOrder changes the backtrack order of later checks.
func (c *Checker) SetOrder(o Order) { c.cfg.Order = o }

// SetMaxSchedules changes the schedule budget of later checks.
func (c *Checker) SetMaxSchedules(n int) { c.cfg.MaxSchedules = max(n, 1) }

// decision is one executed event of a schedule: the plan step it consumed
// and, for a delivery, the message delivered.
type decision struct {
	step int32
	id   record.MsgID
}

func (d decision) key() uint64 {
	if d.id == 0 {
		return uint64(d.step) | 1<<63
	}
	return uint64(d.id)
}

// schedule is the record of one executed schedule, kept while backtracks
// point into it.
type schedule struct {
	decisions []decision
	hashes    []uint64 // hashes[k] = hash of decisions[:k]
	devs      int      // deviations from STSSched in its lineage
	dist      int      // distance from the guide (Order Distance)
	typed     int      // type-matching backtracks recorded from this schedule
	broad     int      // Broad backtracks recorded from this schedule
	// agree is how many of its first decisions are the check's first
	// schedule's (where a backtrack from it may start from a snapshot).
	agree int
}

type backtrack struct {
	parent *schedule
	n      int          // prefix length in parent.decisions
	alt    record.MsgID // delivered instead of the step's match
	step   int32        // the plan step the alternative consumes
	devs   int
	dist   int  // parent's distance plus this deviation's
	broad  bool // of another type than the step's match
}

// backtrackQueue is a priority queue of backtracks in an Order.
type backtrackQueue struct {
	order Order
	q     []backtrack
}

func (q *backtrackQueue) Len() int { return len(q.q) }
func (q *backtrackQueue) Less(i, j int) bool {
	a, b := &q.q[i], &q.q[j]
	if q.order == Distance && a.dist != b.dist {
		return a.dist < b.dist
	}
	if a.devs != b.devs {
		return a.devs < b.devs
	}
	if a.broad != b.broad {
		return !a.broad
	}
	if a.n != b.n {
		return (a.n < b.n) != (q.order == Deepest)
	}
	return a.alt < b.alt
}
func (q *backtrackQueue) Swap(i, j int) { q.q[i], q.q[j] = q.q[j], q.q[i] }
func (q *backtrackQueue) Push(x any)    { q.q = append(q.q, x.(backtrack)) }
func (q *backtrackQueue) Pop() any {
	old := q.q
	b := old[len(old)-1]
	old[len(old)-1] = backtrack{}
	q.q = old[:len(old)-1]
	return b
}

type altKey struct {
	n    int
	from record.ActorID
	fp   uint64
}

// Check explores plan's schedules and reports the first that reproduces
// the target violation. It returns ctx's error if ctx ends first.
func (c *Checker) Check(ctx context.Context, plan Plan) (Result, error) {
	res, err := c.check(ctx, plan)
	if c.forks.failed {
		// An actor could not be copied (record.Sim.ForkError), so the
		// forked runs may have changed each other's actors: check again
		// in full, and never fork again.
		c.forks = forks{off: true, forked: c.forks.forked, skipped: c.forks.skipped}
		res, err = c.check(ctx, plan)
	}
	return res, err
}

// check is Check, forking runs from snapshots where it can (fork.go).
func (c *Checker) check(ctx context.Context, plan Plan) (Result, error) {
	var res Result
	clear(c.explored)
	c.queue.q = c.queue.q[:0]
	c.queue.order = c.cfg.Order
	c.room = c.cfg.MaxSchedules - 1
	// The plan's events in the checker's own buffer, reused check after
	// check (no run outlives its check; the snapshots' drivers, which do,
	// never read their schedule again: they are forked with a new one).
	c.events = plan.appendEvents(c.events[:0])
	events := c.events
	_, tr, err := c.run(ctx, plan, events, nil, 0, backtrack{step: -1})
	res.Schedules++
	if err != nil || tr != nil {
		res.Trace = tr
		return res, err
	}
	if !c.explores() {
		return res, nil
	}
	for res.Schedules < c.cfg.MaxSchedules && c.queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		b := heap.Pop(&c.queue).(backtrack)
		h := hashing.Mix(b.parent.hashes[b.n], uint64(b.alt))
		if _, done := c.explored[h]; done {
			continue
		}
		c.room = c.cfg.MaxSchedules - res.Schedules - 1
		_, tr, err := c.run(ctx, plan, events, b.parent, b.n, b)
		res.Schedules++
		if err != nil || tr != nil {
			res.Trace = tr
			return res, err
		}
	}
	return res, nil
}

// explores reports whether checks run backtracks: TFB, and NoDiverge
// (whose schedules abort when they diverge).
func (c *Checker) explores() bool { return c.cfg.Mode == TFB || c.cfg.Mode == NoDiverge }

// fpOf returns the fingerprint of pending message p, computed once per run.
func (c *Checker) fpOf(gen uint32, p *record.Pending) fingerprint.FP {
	i := int(p.ID)
	if i >= len(c.fps) {
		n := max(2*len(c.fps), i+1, 256)
		fps := make([]fpSlot, n)
		copy(fps, c.fps)
		c.fps = fps
	}
	sl := &c.fps[i]
	if sl.gen != gen {
		sl.gen, sl.fp = gen, c.fp.Of(p.Msg)
	}
	return sl.fp
}

// run executes one schedule: parent's first n decisions exactly, then b's
// alternative (if any), then STSSched over the rest of the plan, all through
// one record.Driver (the plan's events are its schedule, match its loose matching
// rule, the target its wanted violation). It returns the executed schedule
// and, when the target violation occurred, the trace.
func (c *Checker) run(ctx context.Context, plan Plan, events []record.Event, parent *schedule, n int, b backtrack) (*schedule, *record.Trace, error) {
	gen := c.nextGen()
	s := &schedule{}
	explores := c.explores()
	if explores {
		s.decisions = make([]decision, 0, len(plan))
		s.hashes = make([]uint64, 1, len(plan)+1)
	}
	h := uint64(0)
	push := func(d decision) {
		if !explores {
			return
		}
		h = hashing.Mix(h, d.key())
		s.decisions = append(s.decisions, d)
		s.hashes = append(s.hashes, h)
		c.explored[h] = struct{}{}
	}
	aborted := false
	fifo := false // set from the run below, before the first step
	follow := record.Follow{
		Want: record.Want(c.cfg.Target),
		Also: c.also,
		Loose: func(sim *record.Sim, k int, _ *record.Event) (record.MsgID, bool) {
			m := c.match(sim, gen, &plan[k], fifo)
			if m == nil {
				return 0, false // absent: skip the step
			}
			if explores && c.room > 0 {
				c.addBacktracks(gen, sim, s, m, fifo, plan, int32(k))
			}
			return m.ID, true
		},
		Observe: func(sim *record.Sim, o *record.Outcome) bool {
			if o.Skipped {
				return true // absent steps are not decisions
			}
			if o.Step >= 0 {
				push(decision{step: int32(o.Step), id: o.Delivered.ID}) // a prefix and its alternative are pushed below
			}
			if c.cfg.Mode == NoDiverge && o.Delivered.ID != 0 && !c.cfg.Allowed.has(c.transition(gen, sim, o.Event, &o.Delivered)) {
				aborted = true // diverged (a backtrack's alternative too): abort the schedule
				return false
			}
			return true
		},
	}
	first := parent == nil
	forking := c.forking()
	var from *snapshot
	if forking && c.forks.origin == nil {
		c.setOrigin()
	}
	switch {
	case !forking:
	case first:
		from = c.forks.start(plan, c.forkKey())
	default:
		from = c.forks.within(min(parent.agree, n))
	}
	var d *record.Driver
	if from != nil {
		d = from.d.Fork(events, follow)
		if from.pos > 0 || len(from.decisions) > 0 {
			c.forks.forked++
			c.forks.skipped += int64(from.d.Sim().NumEvents())
		}
		if explores {
			s.decisions = append(s.decisions, from.decisions...)
			s.hashes = append(s.hashes[:0], from.hashes...)
			h = s.hashes[len(s.hashes)-1]
		}
		if first && explores {
			// The prefix's record, as the full run would have made it.
			for _, x := range from.hashes[1:] {
				c.explored[x] = struct{}{}
			}
			s.typed, s.broad = from.typed, from.broad
			for _, bt := range from.backtracks {
				bt.parent = s
				c.queue.q = append(c.queue.q, bt) // a heap already
			}
		}
	} else {
		var err error
		if d, err = record.NewDriver(c.setup(), events, follow); err != nil {
			return nil, nil, err
		}
		d.Sim().CompactLog()
	}
	defer func() {
		if d.Sim().ForkError() != nil {
			c.forks.failed = true
		}
	}()
	fifo = d.Sim().Semantics() == record.FIFO
	result := func() (*schedule, *record.Trace, error) {
		if d.Found() {
			return s, d.Sim().Trace(d.Violation()), nil
		}
		return s, nil, nil
	}
	if parent != nil {
		s.devs, s.dist = b.devs, b.dist
		s.agree = min(parent.agree, n)
		var err error
		for _, dec := range parent.decisions[len(s.decisions):n] {
			if dec.id == 0 {
				_, err = d.Apply(ctx, plan[dec.step].Event)
			} else {
				_, err = d.Deliver(ctx, dec.id)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("dpor: replaying a prefix: %w", err)
			}
			push(dec)
			if d.Stopped() {
				return result()
			}
		}
		if _, err := d.Deliver(ctx, b.alt); err != nil {
			return nil, nil, fmt.Errorf("dpor: delivering a backtrack: %w", err)
		}
		push(decision{step: b.step, id: b.alt})
		if aborted {
			return s, nil, nil
		}
		if d.Stopped() {
			return result()
		}
		d.Seek(int(b.step) + 1)
	}
	if first && forking {
		if err := c.runTaking(ctx, d, plan, s); err != nil {
			return nil, nil, err
		}
		s.agree = len(s.decisions)
	} else if err := d.Run(ctx); err != nil {
		return nil, nil, err
	}
	if div := d.Divergence(); div != nil {
		return nil, nil, fmt.Errorf("dpor: %s", div)
	}
	if aborted {
		return s, nil, nil
	}
	return result()
}

// setup is how the checker's runs are set up.
func (c *Checker) setup() record.Setup {
	return record.Setup{System: c.cfg.System, Options: c.cfg.Options, Seed: c.cfg.Seed}
}

// Wildcards makes every delivery of p from step from on a wildcard (Step.Wildcard) and returns p: a move
// changed what comes before them, so each may take another message of its type.
func (p Plan) Wildcards(from int) Plan {
	for k := max(from, 0); k < len(p); k++ {
		p[k].Wildcard = p[k].Wildcard || !p[k].Event.Kind.IsExternal()
	}
	return p
}

// Without returns a copy of p without the steps at the sorted indices drop, its deliveries from step
// wildFrom on (of p; -1: none) wildcards, reroutable (Step.Reroute) too if reroute.
func (p Plan) Without(drop []int, wildFrom int, reroute bool) Plan {
	q := make(Plan, 0, len(p))
	for i, st := range p {
		if len(drop) > 0 && drop[0] == i {
			drop = drop[1:]
			continue
		}
		if wildFrom >= 0 && i >= wildFrom && !st.Event.Kind.IsExternal() {
			st.Wildcard, st.Reroute = true, st.Reroute || reroute
		}
		q = append(q, st)
	}
	return q
}

// Moved returns a copy of p with the step at from moved to position to (counted in p), its deliveries from
// the earlier of the two on wildcards.
func (p Plan) Moved(from, to int) Plan {
	at := from
	if from >= to {
		at++
	}
	return slices.Delete(slices.Insert(slices.Clone(p), to, p[from]), at, at+1).Wildcards(min(from, to))
}

// Flushed returns p with, when fifo, a flush step (Step.Flush) before each
// delivery from i on that x sends or takes: a move that makes x send or be
// sent something sooner than the plan had it (a member started earlier, a
// timer of its own in place of a message) queues that ahead of what the
// plan delivers on x's links. p itself is not changed.
func (p Plan) Flushed(i int, x record.ActorID, fifo bool) Plan {
	q := p[:i:i] // one pass, the flush steps appended: linear in the plan
	for _, st := range p[i:] {
		if d := st.Event; fifo && d.Kind == record.Deliver && d.Timer == "" && (d.From == x || d.To == x) {
			q = append(q, st)
			q[len(q)-1].Flush = true
		}
		q = append(q, st)
	}
	return q
}

// Events returns the plan's events, the schedule a check follows.
func (p Plan) Events() []record.Event { return p.appendEvents(make([]record.Event, 0, len(p))) }

// appendEvents appends the plan's events to dst.
func (p Plan) appendEvents(dst []record.Event) []record.Event {
	for i := range p {
		dst = append(dst, p[i].Event)
	}
	return dst
}

// match returns the message in flight that plan step st delivers, or nil
// when it is absent. It walks the step's own link in the pending messages
// (record.Sim.OnLink; no Enabled list): under FIFO only the head of the
// step's sender-receiver queue is deliverable, timers always are.
func (c *Checker) match(sim *record.Sim, gen uint32, st *Step, fifo bool) *record.Pending {
	to, from, timer := st.Event.To, st.Event.From, st.Event.Timer
	head := fifo && timer == ""
	pend := sim.InFlightHoles()
	if st.Flush {
		if !head {
			return nil
		}
		return c.flush(sim, gen, st, pend)
	}
	var exact, typed *record.Pending
	fs, ts := sim.Slot(from), sim.Slot(to) // ts < 0: not in the system, nothing on its link
	tm := timer != ""
	for i := sim.OnLink(fs, ts, tm); i >= 0; i = sim.NextOnLink(i) {
		p := &pend[i]
		if p.Timer != timer {
			continue // another of the receiver's timers
		}
		f := c.fpOf(gen, p)
		if f.Full == st.FP.Full {
			exact = p
			break
		}
		if st.Wildcard && f.Type == st.FP.Type {
			typed = p // the newest: older ones are likely stale
		}
		if head {
			break // the rest of the queue waits behind its head
		}
	}
	if exact != nil {
		typed = exact
	}
	if typed == nil && st.Reroute && timer == "" {
		return c.reroute(sim, gen, st, fifo)
	}
	if typed != nil && !sim.View().Running(to) {
		return nil
	}
	return typed
}

// flush returns the head of st's FIFO queue (pend is sim.InFlightHoles())
// when st's own message waits behind it, or it is not of st's type and a
// message of st's type waits behind it, and st's receiver is running;
// else nil (Step.Flush).
func (c *Checker) flush(sim *record.Sim, gen uint32, st *Step, pend []record.Pending) *record.Pending {
	var first *record.Pending
	typedHead := false
	fs, ts := sim.Slot(st.Event.From), sim.Slot(st.Event.To)
	for i := sim.OnLink(fs, ts, false); i >= 0; i = sim.NextOnLink(i) {
		p := &pend[i]
		f := c.fpOf(gen, p)
		if first == nil {
			if f.Full == st.FP.Full {
				return nil // the head is the step's own message: nothing to flush
			}
			first, typedHead = p, f.Type == st.FP.Type
			continue
		}
		if f.Full == st.FP.Full || f.Type == st.FP.Type && !typedHead {
			if !sim.View().Running(p.To) {
				return nil
			}
			return first
		}
	}
	return nil
}

// reroute returns a deliverable message in flight of st's type to st's
// receiver from another sender, else from st's sender to another running
// receiver, the first in flight order; nil if none.
func (c *Checker) reroute(sim *record.Sim, gen uint32, st *Step, fifo bool) *record.Pending {
	pend := sim.InFlightHoles()
	v := sim.View()
	fs, ts := sim.Slot(st.Event.From), sim.Slot(st.Event.To)
	for pass := range 2 {
		c.heads = c.heads[:0]
		for i := range pend {
			p := &pend[i]
			pf, pt := p.Slots()
			if pt < 0 || p.Timer != "" {
				continue // removed, or a timer
			}
			if fifo {
				if c.metHead(queueKey(pf, pt)) {
					continue // behind the head of its queue
				}
			}
			sameTo, sameFrom := pt == ts, pf == fs
			if sameTo == sameFrom || (pass == 0) != sameTo {
				continue
			}
			if c.fpOf(gen, p).Type == st.FP.Type && v.Running(p.To) {
				return p
			}
		}
	}
	return nil
}

// addBacktracks records, for the delivery of m at plan step k, the
// co-enabled dependent messages (same receiver) of the same type and a
// different fingerprint (and with Broad, of other types), one per sender
// and fingerprint. Under the Earliest order each kind is recorded within
// its own room, so Broad backtracks never crowd out type-matching ones.
func (c *Checker) addBacktracks(gen uint32, sim *record.Sim, s *schedule, m *record.Pending, fifo bool, plan Plan, k int32) {
	bounded := c.cfg.Order == Earliest
	if bounded && s.typed >= c.room && (!c.cfg.Broad || s.broad >= c.room) {
		return
	}
	mf := c.fpOf(gen, m)
	n := len(s.decisions)
	clear(c.seen)
	c.heads = c.heads[:0]
	mFrom, mTo := m.Slots()
	pend := sim.InFlightHoles()
	for i := range pend {
		p := &pend[i]
		pf, pt := p.Slots()
		if pt != mTo || p.ID == m.ID {
			continue // removed (pt < 0), or another receiver
		}
		if fifo && p.Timer == "" {
			if c.metHead(queueKey(pf, pt)) {
				continue // behind the head of its queue
			}
			if pf == mFrom && m.Timer == "" {
				continue // m itself is the head of this queue
			}
		}
		broad := p.Timer != m.Timer || c.fp.TypeOf(p.Msg) != mf.Type
		if broad && !c.cfg.Broad {
			continue
		}
		if bounded && (broad && s.broad >= c.room || !broad && s.typed >= c.room) {
			continue
		}
		f := c.fpOf(gen, p)
		if f.Full == mf.Full {
			continue
		}
		key := altKey{n: n, from: p.From, fp: f.Full}
		if _, dup := c.seen[key]; dup {
			continue
		}
		c.seen[key] = struct{}{}
		b := backtrack{parent: s, n: n, alt: p.ID, step: k, devs: s.devs + 1, broad: broad}
		if c.cfg.Order == Distance {
			b.dist = s.dist + moved(plan, k, p, f)
		}
		heap.Push(&c.queue, b)
		if broad {
			s.broad++
		} else {
			s.typed++
		}
	}
}

// queueKey names the FIFO queue from slot from to slot to (Pending.Slots).
func queueKey(from, to int32) int64 { return int64(from)<<32 | int64(uint32(to)) }

// metHead reports whether a scan already met the head of queue q (in
// c.heads), and otherwise records that it has: the message is the head.
func (c *Checker) metHead(q int64) bool {
	if slices.Contains(c.heads, q) {
		return true
	}
	c.heads = append(c.heads, q)
	return false
}

// moved is the distance a backtrack adds to its schedule: delivering p
// (fingerprint f) at plan step k instead of the step's match moves the
// delivery of a later step j that matches p exactly (same sender,
// receiver and fingerprint) over j-k steps, each a misordered pair; a
// message no later step matches is a new event (1).
func moved(plan Plan, k int32, p *record.Pending, f fingerprint.FP) int {
	for j := int(k) + 1; j < len(plan); j++ {
		e := &plan[j].Event
		if e.Kind == record.Deliver && e.To == p.To && e.From == p.From && e.Timer == p.Timer && plan[j].FP.Full == f.Full {
			return j - int(k)
		}
	}
	return 1
}

// nextGen starts a run: generations tag the fingerprint cache (indexed by
// message ID) so that it needs no clearing between runs.
func (c *Checker) nextGen() uint32 {
	c.gen++
	if c.gen == 0 {
		clear(c.fps)
		c.gen = 1
	}
	return c.gen
}
