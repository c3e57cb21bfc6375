package record

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"strings"
)

// Pending is a message in the network, not yet delivered.
type Pending struct {
	ID    MsgID
	From  ActorID
	To    ActorID
	Msg   Message
	Timer string // timer key, or "" for an ordinary message
	Cause int    // index of the event that sent it
}

// ErrHalted is returned when an event is applied after a handler panicked.
var ErrHalted = errors.New("run halted after a panic")

type slot struct {
	id          ActorID
	actor       Actor // nil unless running
	incarnation int
	storage     Storage
	rng         *rand.Rand
	seed        uint64
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
	pend    []Pending
	seen    []bool // scratch for FIFO head computation, (n+1)^2
	cut     map[[2]ActorID]bool
	nextID  MsgID
	events  []Event
	halted  *Violation
	ctx     Context

	deliveries, externals int
}

// NewSim prepares a run of sys with the given options (resolved against the
// system's defaults) and seed. No actor is started yet.
func NewSim(sys *System, opts Options, seed uint64) (*Sim, error) {
	o, err := sys.Resolve(opts)
	if err != nil {
		return nil, err
	}
	if sys.Members == nil || sys.New == nil {
		return nil, fmt.Errorf("system %s: Members and New are required", sys.Name)
	}
	members := sys.Members(o)
	s := &Sim{sys: sys, opts: o, seed: seed, sem: sys.semantics(o), members: members,
		index: make(map[ActorID]int, len(members)), cut: map[[2]ActorID]bool{}}
	s.slots = make([]slot, len(members))
	for i, id := range members {
		if _, dup := s.index[id]; dup {
			return nil, fmt.Errorf("system %s: duplicate actor %s", sys.Name, id)
		}
		if id == External {
			return nil, fmt.Errorf("system %s: actor ID %q is reserved", sys.Name, External)
		}
		s.index[id] = i
		h := fnv.New64a()
		h.Write([]byte(id))
		s.slots[i] = slot{id: id, storage: Storage{}, seed: seed ^ h.Sum64()}
	}
	n := len(members) + 1
	s.seen = make([]bool, n*n)
	s.ctx.sim = s
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

// Events returns the events executed so far. The slice is owned by the Sim.
func (s *Sim) Events() []Event { return s.events }

// Deliveries returns the number of deliveries executed so far.
func (s *Sim) Deliveries() int { return s.deliveries }

// Externals returns the number of external events executed so far.
func (s *Sim) Externals() int { return s.externals }

// Halted returns the violation of a handler that panicked, or nil.
func (s *Sim) Halted() *Violation { return s.halted }

// View returns a read-only view of the actors for invariants and display.
func (s *Sim) View() View { return View{s} }

// Trace returns the run so far as a trace (sharing the event slice).
func (s *Sim) Trace(v *Violation) *Trace {
	return &Trace{Header: Header{
		Format: FormatVersion, System: s.sys.Name, Options: s.opts.Pairs(), Seed: s.seed,
		Network: s.sem.String(), Violation: v, Deliveries: s.deliveries, Externals: s.externals,
		EventCount: len(s.events),
	}, Events: s.events}
}

func (s *Sim) idx(id ActorID) int {
	if id == External {
		return len(s.members)
	}
	if i, ok := s.index[id]; ok {
		return i
	}
	return -1
}

func (s *Sim) running(id ActorID) bool {
	i, ok := s.index[id]
	return ok && s.slots[i].actor != nil
}

func (s *Sim) linked(a, b ActorID) bool {
	return len(s.cut) == 0 || !s.cut[[2]ActorID{a, b}]
}

func (s *Sim) send(from, to ActorID, msg Message, timer string, cause int) MsgID {
	s.nextID++
	id := s.nextID
	if s.idx(to) < 0 {
		panic(fmt.Sprintf("send to unknown actor %q", to))
	}
	if from != External && !s.running(to) || !s.linked(from, to) {
		return id // dropped: receiver down or link cut
	}
	s.pend = append(s.pend, Pending{ID: id, From: from, To: to, Msg: msg, Timer: timer, Cause: cause})
	return id
}

func (s *Sim) cancelTimer(self ActorID, key string) {
	for i := range s.pend {
		p := &s.pend[i]
		if p.Timer == key && p.To == self && p.From == self {
			s.pend = append(s.pend[:i], s.pend[i+1:]...)
			return
		}
	}
}

func (s *Sim) dropWhere(f func(p *Pending) bool) {
	out := s.pend[:0]
	for i := range s.pend {
		if !f(&s.pend[i]) {
			out = append(out, s.pend[i])
		}
	}
	clear(s.pend[len(out):])
	s.pend = out
}

// Enabled appends to buf the pending messages that may be delivered next
// under the network semantics (under FIFO: the head of each sender-receiver
// queue, and every timer), in send order, and returns it.
func (s *Sim) Enabled(buf []Pending) []Pending {
	if s.sem == Unordered {
		for _, p := range s.pend {
			if s.running(p.To) {
				buf = append(buf, p)
			}
		}
		return buf
	}
	n := len(s.members) + 1
	clear(s.seen)
	for _, p := range s.pend {
		if p.Timer != "" {
			buf = append(buf, p)
			continue
		}
		k := s.idx(p.From)*n + s.idx(p.To)
		if s.seen[k] {
			continue
		}
		s.seen[k] = true
		if s.running(p.To) {
			buf = append(buf, p)
		}
	}
	return buf
}

// InFlight returns every pending message, enabled or not, in send order. The
// slice is owned by the Sim.
func (s *Sim) InFlight() []Pending { return s.pend }

// NotPendingError reports a delivery of a message that is not pending, or
// not deliverable under the network semantics.
type NotPendingError struct {
	ID     MsgID
	Reason string
}

func (e *NotPendingError) Error() string { return fmt.Sprintf("message #%d %s", e.ID, e.Reason) }

// Deliver delivers the pending message id to its receiver and runs the
// receiver's handler. A panic in the handler halts the run and becomes a
// violation (see Halted and Check).
func (s *Sim) Deliver(id MsgID) error {
	if s.halted != nil {
		return ErrHalted
	}
	at := -1
	for i := range s.pend {
		if s.pend[i].ID == id {
			at = i
			break
		}
	}
	if at < 0 {
		return &NotPendingError{ID: id, Reason: "is not pending"}
	}
	p := s.pend[at]
	if s.sem == FIFO && p.Timer == "" {
		for i := 0; i < at; i++ {
			q := &s.pend[i]
			if q.From == p.From && q.To == p.To && q.Timer == "" {
				return &NotPendingError{ID: id, Reason: fmt.Sprintf("is queued behind #%d (FIFO %s→%s)", q.ID, p.From, p.To)}
			}
		}
	}
	if !s.running(p.To) {
		return &NotPendingError{ID: id, Reason: "is addressed to " + string(p.To) + ", which is not running"}
	}
	copy(s.pend[at:], s.pend[at+1:])
	s.pend[len(s.pend)-1] = Pending{}
	s.pend = s.pend[:len(s.pend)-1]

	s.events = append(s.events, Event{Kind: Deliver, ID: p.ID, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer, Cause: p.Cause})
	s.deliveries++
	sl := &s.slots[s.index[p.To]]
	s.call(sl, func(ctx *Context) { sl.actor.Receive(ctx, p.From, p.Msg) })
	return nil
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
	s.events = append(s.events, e)
	at := len(s.events) - 1
	s.externals++
	switch e.Kind {
	case Start:
		sl := &s.slots[s.index[e.Actor]]
		if sl.actor == nil {
			s.boot(sl)
		}
	case Kill:
		sl := &s.slots[s.index[e.Actor]]
		sl.actor = nil
		s.dropWhere(func(p *Pending) bool { return p.To == e.Actor })
	case Restart:
		sl := &s.slots[s.index[e.Actor]]
		if sl.actor != nil {
			sl.actor = nil
			s.dropWhere(func(p *Pending) bool { return p.To == e.Actor })
			s.boot(sl)
		}
	case Send:
		s.events[at].ID = s.send(External, e.To, e.Msg, "", at)
	case Partition, Heal:
		for _, a := range e.A {
			for _, b := range e.B {
				if e.Kind == Partition {
					s.cut[[2]ActorID{a, b}], s.cut[[2]ActorID{b, a}] = true, true
				} else {
					delete(s.cut, [2]ActorID{a, b})
					delete(s.cut, [2]ActorID{b, a})
				}
			}
		}
		if e.Kind == Partition {
			s.dropWhere(func(p *Pending) bool { return !s.linked(p.From, p.To) })
		}
	}
	return nil
}

func (s *Sim) boot(sl *slot) {
	sl.incarnation++
	sl.rng = nil
	sl.actor = s.sys.New(sl.id, s.opts)
	if st, ok := sl.actor.(Starter); ok {
		s.call(sl, func(ctx *Context) { st.Start(ctx) })
	}
}

func (s *Sim) call(sl *slot, f func(ctx *Context)) {
	s.ctx.self = sl.id
	s.ctx.event = len(s.events) - 1
	defer func() {
		if r := recover(); r != nil {
			s.halted = panicViolation(r, sl.id, len(s.events)-1)
		}
	}()
	f(&s.ctx)
}

// panicViolation turns a recovered panic into a violation whose fingerprint
// names the panic's message and the function that panicked.
func panicViolation(r any, id ActorID, event int) *Violation {
	msg := fmt.Sprint(r)
	if err, ok := r.(error); ok {
		msg = err.Error()
	}
	loc := panicLocation()
	return &Violation{
		Fingerprint: "panic: " + msg + " @ " + loc,
		Detail:      fmt.Sprintf("actor %s panicked: %s (at %s)", id, msg, loc),
		Event:       event,
	}
}

// panicLocation finds the function that panicked: the first frame after
// the runtime's panic machinery.
func panicLocation() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	afterPanic := false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			if f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic") {
				afterPanic = true
			}
		} else if afterPanic {
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			name := f.Function
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				name = name[i+1:]
			}
			return fmt.Sprintf("%s (%s:%d)", name, file, f.Line)
		}
		if !more {
			return "unknown location"
		}
	}
}

// Check returns the violation of a panicked handler, or else the system's
// invariant over the current states (nil when it holds).
func (s *Sim) Check() (v *Violation) {
	if s.halted != nil {
		return s.halted
	}
	if s.sys.Invariant == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			v = &Violation{Fingerprint: fmt.Sprintf("invariant panic: %v", r), Detail: fmt.Sprintf("the invariant itself panicked: %v", r)}
		}
		if v != nil {
			v.Event = len(s.events) - 1
		}
	}()
	return s.sys.Invariant(View{s})
}

// View is a read-only window on a run's actors, for invariants, conditions,
// fuzz generators and display.
type View struct{ s *Sim }

// Members returns the actors of the run in the system's order.
func (v View) Members() []ActorID { return v.s.members }

// Actor returns the running actor id, or nil if it is not running.
func (v View) Actor(id ActorID) Actor {
	if i, ok := v.s.index[id]; ok {
		return v.s.slots[i].actor
	}
	return nil
}

// Running reports whether actor id is running.
func (v View) Running(id ActorID) bool { return v.s.running(id) }

// Options returns the run's options.
func (v View) Options() Options { return v.s.opts }

// InFlight returns the number of pending messages that are not timers.
func (v View) InFlight() int {
	n := 0
	for i := range v.s.pend {
		if v.s.pend[i].Timer == "" {
			n++
		}
	}
	return n
}

// Partitioned reports whether the link from a to b is cut.
func (v View) Partitioned(a, b ActorID) bool { return !v.s.linked(a, b) }
