package record

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"unsafe"
)

// ErrHalted is returned when an event is applied after a handler panicked.
var ErrHalted = errors.New("run halted after a panic")

type slot struct {
	id          ActorID
	index       int32 // position in Sim.slots
	actor       Actor // nil unless running
	incarnation int
	storage     Storage
	rng         *rand.Rand
	seed        uint64
	shared      bool // actor, storage and rng are shared with a fork (see Fork)
}

func (s *slot) rand() *rand.Rand {
	if s.rng == nil {
		s.rng = rand.New(rand.NewPCG(s.seed, uint64(s.incarnation)))
	}
	return s.rng
}

// Sim runs one execution of a system, one event at a time, and records it.
// A Sim is not safe for concurrent use; run independent Sims in parallel.
type Sim struct {
	sys     *System
	opts    Options
	seed    uint64
	sem     Semantics
	members []ActorID
	index   map[ActorID]int
	slots   []slot
	// pend holds the messages in flight in send order, so sorted by ID.
	// A removed message leaves a hole (its ID kept, to = -1) until holes
	// outnumber live messages: removing from the middle of a slice of
	// pointerful structs costs a shift with write barriers per delivery.
	pend   []Pending
	meta   []pmeta // parallel to pend: what Enabled needs, densely packed
	holes  int
	seen   []uint32    // FIFO head computation: link (n+1)*from+to seen at generation gen
	links  []linkIndex // per link, then per receiver's timers (linkKey); nil until OnLink
	chainv []chainLink // parallel to meta when links is built
	gen    uint32
	enab   []int32 // scratch for Enabled
	cut    []bool  // link (n+1)*a+b is cut by a partition
	ncut   int     // number of cut links
	nextID MsgID
	expect int // the longest the event log is expected to grow (fuzz: the step limit)
	// events is the event log. A lazy Sim (the runs of a fuzz campaign,
	// most of them discarded) keeps it in compact form in log instead, one
	// entry per event, and events holds the first len(events) entries
	// materialized, extended on demand (Events, Trace): a discarded run
	// never pays for 176-byte Events with eight pointer words each. log
	// and ext are kept in chunks that forks share (see chunks).
	events []Event
	lazy   bool
	nolog  bool // no event log is kept (see DropLog); nevents counts events
	nevts  int
	log    chunks[entry]
	ext    chunks[Event] // lazy: the external events, as applied, in order
	halted *Violation
	ctx    Context
	up     int   // running actors
	sch    sched // the enabled set, kept up to date for the fuzzer

	deliveries, externals int
	// readClock and readNetwork record that a handler read the event
	// clock (Context.EventIndex) and that a check read the network
	// (View.NumInFlight); forks inherit them (see Observed).
	readClock, readNetwork bool
	cancels                int                // Context.CancelTimer calls (see Cancels)
	forkErr                error              // the first actor a fork could not copy (see ForkError)
	types                  *MessageTypes      // the registered message types (see registered)
	plan                   *simPlan           // what the run shares with other runs of the system
	sysErr                 *UnregisteredError // see SystemError
	live                   liveWindow         // the bounded-liveness property (liveness.go)
	tm                     *TimeModel         // nil: no virtual time (time.go)
	now                    VirtualTime        // the virtual clock, with tm
}

// NewSim prepares a run of sys with the given options (resolved against the
// system's defaults) and seed. No actor is started yet.
func NewSim(sys *System, opts Options, seed uint64) (*Sim, error) {
	p, err := planSims(sys)
	if err != nil {
		return nil, err
	}
	return p.newSim(opts, seed)
}

// simPlan is what every run of a system shares, whatever its options and
// seed: the system checked and its message types registered. A campaign or
// a driver that makes many runs builds it once (a fuzz run of a small
// system costs little more than building it).
type simPlan struct {
	sys   *System
	types *MessageTypes
}

func planSims(sys *System) (*simPlan, error) {
	if err := sys.CheckOptions(); err != nil {
		return nil, err
	}
	if sys.Members == nil || sys.New == nil {
		return nil, fmt.Errorf("system %s: Members and New are required", sys.Name)
	}
	types, err := sys.Types()
	if err != nil {
		return nil, err
	}
	return &simPlan{sys: sys, types: types}, nil
}

// newSim is NewSim on a checked system.
func (p *simPlan) newSim(opts Options, seed uint64) (*Sim, error) {
	sys, types := p.sys, p.types
	o, err := sys.resolve(opts)
	if err != nil {
		return nil, err
	}
	members := sys.Members(o)
	s := &Sim{sys: sys, opts: o, seed: seed, sem: sys.semantics(o), members: members, types: types, plan: p,
		index: make(map[ActorID]int, len(members))}
	if sys.Time != nil {
		if tm := sys.Time(o); tm != nil {
			if tm.MaxDelay < 0 {
				return nil, fmt.Errorf("system %s: time model with a negative MaxDelay %d", sys.Name, tm.MaxDelay)
			}
			c := *tm
			s.tm = &c
		}
	}
	s.slots = make([]slot, len(members))
	for i, id := range members {
		if _, dup := s.index[id]; dup {
			return nil, fmt.Errorf("system %s: duplicate actor %s", sys.Name, id)
		}
		if id == External {
			return nil, fmt.Errorf("system %s: actor ID %q is reserved", sys.Name, External)
		}
		s.index[id] = i
		h := fnv.New64a() // part of what a seed means: never change it
		h.Write([]byte(id))
		s.slots[i] = slot{id: id, index: int32(i), storage: Storage{}, seed: seed ^ h.Sum64()}
	}
	n := len(members) + 1
	s.seen = make([]uint32, n*n)
	s.cut = make([]bool, n*n)
	s.ctx.sim = s
	s.liveStart()
	return s, nil
}

// System returns the system being run.
func (s *Sim) System() *System { return s.sys }

// Options returns the resolved options of the run.
func (s *Sim) Options() Options { return s.opts }

// Seed returns the run's seed.
func (s *Sim) Seed() uint64 { return s.seed }

// Semantics returns the network semantics of the run.
func (s *Sim) Semantics() Semantics { return s.sem }

// Members returns the actors of the run in the system's order.
func (s *Sim) Members() []ActorID { return s.members }

// NumDeliveries returns the number of deliveries executed so far.
func (s *Sim) NumDeliveries() int { return s.deliveries }

// NumExternals returns the number of external events executed so far
// (Trace.Externals lists a trace's external events).
func (s *Sim) NumExternals() int { return s.externals }

// Halted returns the violation of a handler that panicked, or nil.
func (s *Sim) Halted() *Violation { return s.halted }

func (s *Sim) idx(id ActorID) int {
	if id == External {
		return len(s.members)
	}
	if i, ok := s.index[id]; ok {
		return i
	}
	return -1
}

// Slot returns the slot of actor id in the Sims of its setup: its index
// among Members, len(Members) for External, -1 for an actor not in the
// system (Pending.Slots).
func (s *Sim) Slot(id ActorID) int32 { return int32(s.slotOf(id)) }

// slotOf is idx for a message's receiver: a few string comparisons are
// cheaper than hashing for a small system.
func (s *Sim) slotOf(id ActorID) int {
	if len(s.members) <= 8 {
		for i, m := range s.members { // usually the very same string
			if len(m) == len(id) && unsafe.StringData(string(m)) == unsafe.StringData(string(id)) {
				return i
			}
		}
		for i, m := range s.members {
			if m == id {
				return i
			}
		}
	}
	return s.idx(id)
}

func (s *Sim) running(id ActorID) bool {
	i, ok := s.index[id]
	return ok && s.slots[i].actor != nil
}

// runningAt reports whether the actor in slot i is running (External,
// slot len(members), never is).
func (s *Sim) runningAt(i int32) bool {
	return int(i) < len(s.slots) && s.slots[i].actor != nil
}

// Deliver delivers the pending message id to its receiver and runs the
// receiver's handler. A panic in the handler halts the run and becomes a
// violation (see Halted and Check).
func (s *Sim) Deliver(id MsgID) error {
	if s.halted != nil {
		return ErrHalted
	}
	at, why := s.deliverable(id)
	if why != nil {
		return why
	}
	s.deliverAt(at)
	return nil
}

// deliverAt delivers s.pend[at], which must be enabled.
func (s *Sim) deliverAt(at int) {
	if s.tm != nil {
		s.advance(at)
	}
	p := &s.pend[at]
	to, from, msg := p.to, p.From, p.Msg
	if s.nolog {
		s.nevts++
	} else if s.lazy {
		en := s.log.push()
		en.kind, en.id, en.from, en.to, en.cause = Deliver, p.ID, p.from, p.to, p.Cause
		en.msg, en.timer, en.at = p.Msg, p.Timer, s.now
	} else {
		// Field by field, not as a struct copy: a copy of a 176-byte Event
		// goes through the bulk write barrier for all nine pointer words
		// whenever the collector is marking.
		s.roomForEvent()
		s.events = s.events[:len(s.events)+1]
		e := &s.events[len(s.events)-1]
		if e.Kind != 0 { // not zero: a caller appended to Events() in place
			*e = Event{}
		}
		e.Kind, e.ID, e.Cause = Deliver, p.ID, p.Cause
		e.From, e.To, e.Msg = p.From, p.To, p.Msg
		if p.Timer != "" {
			e.Timer = p.Timer
		}
		if s.now != 0 {
			e.At = s.now
		}
	}
	s.remove(at) // p is invalid from here on
	s.deliveries++
	s.call(&s.slots[to], nil, from, msg)
	if s.live.within > 0 {
		s.liveDelivered()
	}
}

// Step executes event e of a schedule: Deliver for a delivery, Apply for
// an external event.
func (s *Sim) Step(e Event) error {
	if e.Kind == Deliver {
		return s.Deliver(e.ID)
	}
	return s.Apply(e)
}

// Apply executes an external event. Events that cannot take effect (killing
// an actor that is not running, starting one that is) are recorded and do
// nothing, so that any subsequence of a valid schedule can be applied.
func (s *Sim) Apply(e Event) error {
	if s.halted != nil {
		return ErrHalted
	}
	if e.Kind <= Deliver || e.Kind > WaitCondition {
		return fmt.Errorf("apply: %s is not an external event", e.Kind)
	}
	e.Cause = -1
	e.ID = 0
	switch e.Kind {
	case Start, Kill, Restart:
		if _, ok := s.index[e.Actor]; !ok {
			return fmt.Errorf("%s: unknown actor %q", e.Kind, e.Actor)
		}
	case Send:
		if _, ok := s.index[e.To]; !ok {
			return fmt.Errorf("send: unknown actor %q", e.To)
		}
		if e.Msg == nil {
			return errors.New("send: nil message")
		}
		e.From = External
	case Partition, Heal:
		for _, id := range append(append([]ActorID{}, e.A...), e.B...) {
			if _, ok := s.index[id]; !ok {
				return fmt.Errorf("%s: unknown actor %q", e.Kind, id)
			}
		}
	}
	switch {
	case s.nolog:
		s.nevts++
	case s.lazy:
		*s.log.push() = entry{kind: e.Kind, from: int32(s.ext.size()), cause: -1}
		*s.ext.push() = e
	default:
		s.roomForEvent()
		s.events = append(s.events, e)
	}
	at := s.eventCount() - 1
	s.externals++
	switch e.Kind {
	case Start:
		sl := &s.slots[s.index[e.Actor]]
		if sl.actor == nil {
			s.boot(sl)
		}
	case Kill:
		sl := &s.slots[s.index[e.Actor]]
		if sl.actor != nil {
			s.up--
		}
		sl.actor = nil
		s.dropWhere(func(p *Pending) bool { return p.To == e.Actor })
	case Restart:
		sl := &s.slots[s.index[e.Actor]]
		if sl.actor != nil {
			sl.actor = nil
			s.up--
			s.dropWhere(func(p *Pending) bool { return p.To == e.Actor })
			s.boot(sl)
		}
	case Send:
		if !s.registered(e.Msg) {
			return &UnregisteredError{System: s.sys.Name, Actor: External, Type: TypeName(e.Msg)}
		}
		id := s.send(int32(len(s.members)), External, e.To, e.Msg, "", at, 0)
		if s.nolog {
			break
		}
		if s.lazy {
			s.ext.at(s.ext.size() - 1).ID = id
		} else {
			s.events[at].ID = id
		}
	case Partition, Heal:
		n := len(s.members) + 1
		for _, a := range e.A {
			for _, b := range e.B {
				i, j := s.index[a], s.index[b]
				s.setCut(i*n+j, e.Kind == Partition)
				s.setCut(j*n+i, e.Kind == Partition)
			}
		}
		if e.Kind == Partition {
			s.dropWhere(func(p *Pending) bool { return !s.linkedAt(p.from, p.to) })
		}
	}
	if s.live.within > 0 {
		s.liveApplied(&e, at)
	}
	return nil
}
