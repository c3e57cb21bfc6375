package record

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// Pending is a message in the network, not yet delivered.
type Pending struct {
	ID    MsgID
	From  ActorID
	To    ActorID
	Msg   Message
	Timer string // timer key, or "" for an ordinary message
	Cause int    // index of the event that sent it

	from, to int32 // sender's and receiver's slot (len(members) for External); to < 0: removed
}

// gone reports whether p is a hole left by a removed message (see Sim.pend).
func (p *Pending) gone() bool { return p.to < 0 }

// pmeta is what the scheduler needs of a pending message: its link
// (from*(members+1)+to, or linkGone or linkTimer) and its receiver's slot.
type pmeta struct{ link, to int32 }

const (
	linkGone  = -1 // a hole
	linkTimer = -2 // a timer: not subject to FIFO order
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
}

func (s *slot) rand() *rand.Rand {
	if s.rng == nil {
		s.rng = rand.New(rand.NewPCG(s.seed, uint64(s.incarnation)))
	}
	return s.rng
}

// sched is the enabled set under FIFO, maintained message by message for
// the fuzzer instead of recomputed from the pending list at every step:
// hd holds the head of every non-empty link in ID order (so in send
// order), tm every timer in ID order, cnt the non-timer messages pending
// per link. Anything but a send or the removal of a head or a timer (a
// kill, a partition) marks it stale, and it is rebuilt from the pending
// list when next used.
type sched struct {
	on, ok bool // maintained at all (a fuzz run over FIFO); up to date
	hint   int  // where in hd the message being delivered is, or -1
	hd, tm []head
	cnt    []int32
}

// head is a message of the enabled set: its ID, link, receiver's slot and
// position in the pending list (updated when the list is compacted).
type head struct {
	id            MsgID
	link, to, pos int32
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
	seen   []uint32 // FIFO head computation: link (n+1)*from+to seen at generation gen
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
	// never pays for 176-byte Events with eight pointer words each.
	events []Event
	lazy   bool
	log    []entry
	ext    []Event // lazy: the external events, as applied, in order
	halted *Violation
	ctx    Context
	up     int   // running actors
	sch    sched // the enabled set, kept up to date for the fuzzer

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
		index: make(map[ActorID]int, len(members))}
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

// entry is one event of the log in compact form: a delivery names its
// sender and receiver by slot (len(members) for External); an external
// event is s.ext[from].
type entry struct {
	msg      Message
	timer    string
	id       MsgID
	cause    int
	from, to int32
	kind     Kind
}

// Events returns the events executed so far. The slice is owned by the Sim.
func (s *Sim) Events() []Event {
	if n := len(s.log) - len(s.events); s.lazy && n > 0 {
		if cap(s.events)-len(s.events) < n {
			s.events = slices.Grow(s.events, max(n, len(s.events)))
		}
		from := len(s.events)
		s.events = s.events[:len(s.log)]
		for i := from; i < len(s.log); i++ {
			s.fill(&s.events[i], i)
		}
	}
	return s.events
}

// fill materializes the log's entry i into *e, field by field (see
// deliverAt).
func (s *Sim) fill(e *Event, i int) {
	en := &s.log[i]
	if en.kind != Deliver {
		*e = s.ext[en.from]
		return
	}
	if e.Kind != 0 { // not zero: a caller appended to Events() in place
		*e = Event{}
	}
	e.Kind, e.ID, e.Cause = Deliver, en.id, en.cause
	e.From, e.To, e.Msg = s.actorAt(en.from), s.actorAt(en.to), en.msg
	if en.timer != "" {
		e.Timer = en.timer
	}
}

// actorAt returns the ID of the actor in slot i, or External.
func (s *Sim) actorAt(i int32) ActorID {
	if int(i) < len(s.slots) {
		return s.slots[i].id
	}
	return External
}

// Reserve makes room for n more events in the run's event log, so that a
// caller that knows roughly how long the run will be (a fuzz run's step
// limit, a trace being replayed) avoids growing it event by event.
func (s *Sim) Reserve(n int) {
	if n <= 0 {
		return
	}
	if s.lazy {
		s.log = slices.Grow(s.log, n)
	} else {
		s.events = slices.Grow(s.events, n)
	}
}

// eventCount is the length of the event log.
func (s *Sim) eventCount() int {
	if s.lazy {
		return len(s.log)
	}
	return len(s.events)
}

// roomForEvent makes room for one more event, doubling the log when it is
// full: append grows large slices by only a quarter at a time, which copies
// a long log (176 bytes an event, pointers included) over and over.
func (s *Sim) roomForEvent() {
	if s.lazy {
		s.log = grown(s.log, s.expect)
	} else {
		s.events = grown(s.events, s.expect)
	}
}

// grown returns log with room for one more element: doubled when full, or,
// once past 1024 elements, grown at once to expect if that is larger.
func grown[T any](log []T, expect int) []T {
	if len(log) < cap(log) {
		return log
	}
	n := max(64, len(log))
	if len(log) >= 1024 && expect > len(log)+n {
		n = expect - len(log) // a long run: make room for all of it at once
	}
	return slices.Grow(log, n)
}

// sentID returns the message ID external event i (a Send) gave its message.
func (s *Sim) sentID(i int) MsgID {
	if s.lazy {
		return s.ext[s.log[i].from].ID
	}
	return s.events[i].ID
}

// Deliveries returns the number of deliveries executed so far.
func (s *Sim) Deliveries() int { return s.deliveries }

// Externals returns the number of external events executed so far.
func (s *Sim) Externals() int { return s.externals }

// Halted returns the violation of a handler that panicked, or nil.
func (s *Sim) Halted() *Violation { return s.halted }

// View returns a read-only view of the actors for invariants and display.
func (s *Sim) View() View { return View{s} }

// Trace returns the run so far as a trace whose header holds violation v
// (nil: none). The trace is the caller's: its events are a copy, so the
// run may go on, or be rebuilt, without changing it.
func (s *Sim) Trace(v *Violation) *Trace {
	t := s.handOver(v)
	t.Events = slices.Clone(t.Events)
	return t
}

// handOver is Trace sharing the event log, for a run that ends here (a
// fuzz run hands its log over instead of copying it).
func (s *Sim) handOver(v *Violation) *Trace {
	return &Trace{Header: Header{
		Format: FormatVersion, System: s.sys.Name, Options: s.opts.Pairs(), Seed: s.seed,
		Network: s.sem.String(), Violation: v, Deliveries: s.deliveries, Externals: s.externals,
		EventCount: s.eventCount(),
	}, Events: s.Events()}
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

func (s *Sim) linked(a, b ActorID) bool {
	if s.ncut == 0 {
		return true
	}
	i, j := s.idx(a), s.idx(b)
	return i < 0 || j < 0 || s.linkedAt(int32(i), int32(j))
}

func (s *Sim) linkedAt(a, b int32) bool {
	return s.ncut == 0 || !s.cut[int(a)*(len(s.members)+1)+int(b)]
}

// send puts a message from the actor in slot fi into the network.
func (s *Sim) send(fi int32, from, to ActorID, msg Message, timer string, cause int) MsgID {
	s.nextID++
	id := s.nextID
	i := s.slotOf(to) // fi itself when to == from
	if i < 0 {
		panic(fmt.Sprintf("send to unknown actor %q", to))
	}
	ti := int32(i)
	if from != External && !s.runningAt(ti) || !s.linkedAt(fi, ti) {
		return id // dropped: receiver down or link cut
	}
	// Field by field, not as a struct copy (see deliverAt).
	if len(s.pend) == cap(s.pend) {
		s.pend = slices.Grow(s.pend, 1)
	}
	s.pend = s.pend[:len(s.pend)+1]
	p := &s.pend[len(s.pend)-1]
	p.ID, p.Cause, p.from, p.to = id, cause, fi, ti
	p.From, p.To, p.Msg, p.Timer = from, to, msg, timer
	link := fi*int32(len(s.members)+1) + ti
	if timer != "" {
		link = linkTimer
	}
	s.meta = append(s.meta, pmeta{link: link, to: ti})
	if s.sch.ok {
		if link == linkTimer {
			s.sch.tm = append(s.sch.tm, head{id: id, link: link, to: ti, pos: int32(len(s.pend) - 1)})
		} else {
			if s.sch.cnt[link] == 0 {
				s.sch.hd = append(s.sch.hd, head{id: id, link: link, to: ti, pos: int32(len(s.pend) - 1)})
			}
			s.sch.cnt[link]++
		}
	}
	return id
}

func (s *Sim) cancelTimer(self int32, key string) {
	for i := range s.pend {
		p := &s.pend[i]
		if p.to == self && p.from == self && p.Timer == key {
			s.remove(i)
			return
		}
	}
}

// remove takes s.pend[i] out of the network, leaving a hole.
func (s *Sim) remove(i int) {
	if s.sch.ok {
		s.unschedule(i)
	}
	// A hole keeps its ID (for binary search) and, until compaction
	// clears it, the rest of its fields: clearing pointers costs barriers.
	s.pend[i].to = -1
	s.meta[i] = pmeta{link: linkGone, to: -1}
	s.holes++
	n := len(s.pend)
	for n > 0 && s.pend[n-1].gone() {
		n--
		s.holes--
	}
	if n < len(s.pend) { // the tail is left for the next sends to overwrite (see compact)
		s.pend, s.meta = s.pend[:n], s.meta[:n]
	}
	if s.holes > 32 && 2*s.holes > len(s.pend) {
		s.compact()
	}
}

// unschedule takes s.pend[i] out of the enabled set (before remove makes
// it a hole).
func (s *Sim) unschedule(i int) {
	sc := &s.sch
	id, link := s.pend[i].ID, s.meta[i].link
	if link == linkTimer {
		for k := range sc.tm {
			if sc.tm[k].id == id {
				sc.tm = slices.Delete(sc.tm, k, k+1)
				return
			}
		}
		sc.ok = false
		return
	}
	hd := sc.hd
	k := sc.hint
	sc.hint = -1
	if k < 0 || k >= len(hd) || hd[k].id != id {
		k = 0
		for k < len(hd) && hd[k].id != id {
			k++
		}
		if k == len(hd) { // not a head: only Deliver under Unordered does that
			sc.ok = false
			return
		}
	}
	sc.cnt[link]--
	if sc.cnt[link] == 0 {
		copy(hd[k:], hd[k+1:])
		sc.hd = hd[:len(hd)-1]
		return
	}
	// The next message of the link becomes its head: a later message,
	// so it goes at or after k in ID order.
	for j := i + 1; j < len(s.meta); j++ {
		if s.meta[j].link == link {
			h := head{id: s.pend[j].ID, link: link, to: s.meta[j].to, pos: int32(j)}
			for k+1 < len(hd) && hd[k+1].id < h.id {
				hd[k] = hd[k+1]
				k++
			}
			hd[k] = h
			return
		}
	}
	sc.ok = false // unreachable: cnt says there is one
}

// reschedule rebuilds the enabled set from the pending list.
func (s *Sim) reschedule() {
	sc := &s.sch
	if sc.cnt == nil {
		sc.cnt = make([]int32, len(s.seen))
	} else {
		clear(sc.cnt)
	}
	sc.hd, sc.tm = sc.hd[:0], sc.tm[:0]
	for i, m := range s.meta {
		switch {
		case m.link == linkTimer:
			sc.tm = append(sc.tm, head{id: s.pend[i].ID, link: m.link, to: m.to, pos: int32(i)})
		case m.link >= 0:
			if sc.cnt[m.link] == 0 {
				sc.hd = append(sc.hd, head{id: s.pend[i].ID, link: m.link, to: m.to, pos: int32(i)})
			}
			sc.cnt[m.link]++
		}
	}
	sc.ok = true
}

// compact removes every hole from the pending list.
func (s *Sim) compact() {
	out, meta := s.pend[:0], s.meta[:0]
	for i := range s.pend {
		if !s.pend[i].gone() {
			out = append(out, s.pend[i])
			meta = append(meta, s.meta[i])
		}
	}
	// The tail is not cleared (clearing pointers costs write barriers):
	// its stale messages are overwritten by the next sends.
	s.pend, s.meta = out, meta
	s.holes = 0
	if s.sch.ok {
		for _, hs := range [][]head{s.sch.hd, s.sch.tm} {
			for k := range hs {
				hs[k].pos = int32(s.find(hs[k].id))
			}
		}
	}
}

// dropWhere removes the messages for which f holds, and every hole.
func (s *Sim) dropWhere(f func(p *Pending) bool) {
	s.sch.ok = false
	out, meta := s.pend[:0], s.meta[:0]
	for i := range s.pend {
		if !s.pend[i].gone() && !f(&s.pend[i]) {
			out = append(out, s.pend[i])
			meta = append(meta, s.meta[i])
		}
	}
	clear(s.pend[len(out):])
	s.pend, s.meta = out, meta
	s.holes = 0
}

// Enabled appends to buf the pending messages that may be delivered next
// under the network semantics (under FIFO: the head of each sender-receiver
// queue, and every timer), in send order, and returns it.
func (s *Sim) Enabled(buf []Pending) []Pending {
	s.enab, _ = s.enabled(s.enab[:0])
	for _, i := range s.enab {
		buf = append(buf, s.pend[i])
	}
	return buf
}

// enabled is Enabled as positions in s.pend; it also counts the timers
// among them.
func (s *Sim) enabled(buf []int32) ([]int32, int) {
	timers := 0
	if s.sem == Unordered {
		for i, m := range s.meta {
			if m.link != linkGone && s.runningAt(m.to) {
				buf = append(buf, int32(i))
				if m.link == linkTimer {
					timers++
				}
			}
		}
		return buf, timers
	}
	s.gen++
	if s.gen == 0 { // wrapped: forget every old generation
		clear(s.seen)
		s.gen = 1
	}
	seen, gen := s.seen, s.gen
	for i, m := range s.meta {
		if m.link < 0 {
			if m.link == linkTimer {
				buf = append(buf, int32(i))
				timers++
			}
			continue
		}
		if seen[m.link] == gen {
			continue
		}
		seen[m.link] = gen
		if s.runningAt(m.to) {
			buf = append(buf, int32(i))
		}
	}
	return buf, timers
}

// find returns the position of message id in s.pend, or -1 if it is not
// pending. s.pend is sorted by ID: binary search.
func (s *Sim) find(id MsgID) int {
	lo, hi := 0, len(s.pend)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.pend[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s.pend) || s.pend[lo].ID != id || s.pend[lo].gone() {
		return -1
	}
	return lo
}

// Pending returns the pending message id (enabled or not), if there is one.
func (s *Sim) Pending(id MsgID) (Pending, bool) {
	if at := s.find(id); at >= 0 {
		return s.pend[at], true
	}
	return Pending{}, false
}

// InFlight returns every pending message, enabled or not, in send order. The
// slice is owned by the Sim.
func (s *Sim) InFlight() []Pending {
	if s.holes > 0 {
		s.compact()
	}
	return s.pend
}

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
	at, why := s.deliverable(id)
	if why != nil {
		return why
	}
	s.deliverAt(at)
	return nil
}

// deliverAt delivers s.pend[at], which must be enabled.
func (s *Sim) deliverAt(at int) {
	p := &s.pend[at]
	to, from, msg := p.to, p.From, p.Msg
	if s.lazy {
		if len(s.log) == cap(s.log) {
			s.roomForEvent()
		}
		s.log = s.log[:len(s.log)+1]
		en := &s.log[len(s.log)-1]
		en.kind, en.id, en.from, en.to, en.cause = Deliver, p.ID, p.from, p.to, p.Cause
		en.msg, en.timer = p.Msg, p.Timer
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
	}
	s.remove(at) // p is invalid from here on
	s.deliveries++
	s.receive(&s.slots[to], from, msg)
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
	s.roomForEvent()
	if s.lazy {
		s.log = append(s.log, entry{kind: e.Kind, from: int32(len(s.ext)), cause: -1})
		s.ext = append(s.ext, e)
	} else {
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
		id := s.send(int32(len(s.members)), External, e.To, e.Msg, "", at)
		if s.lazy {
			s.ext[len(s.ext)-1].ID = id
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
	return nil
}

func (s *Sim) setCut(k int, cut bool) {
	if s.cut[k] != cut {
		s.cut[k] = cut
		if cut {
			s.ncut++
		} else {
			s.ncut--
		}
	}
}

func (s *Sim) boot(sl *slot) {
	sl.incarnation++
	sl.rng = nil
	sl.actor = s.sys.New(sl.id, s.opts)
	if sl.actor != nil {
		s.up++
	}
	if st, ok := sl.actor.(Starter); ok {
		s.start(sl, st)
	}
}

// enter points the shared Context at sl for one handler call.
func (s *Sim) enter(sl *slot) *Context {
	s.ctx.self = sl.id
	s.ctx.slot = sl
	s.ctx.event = s.eventCount() - 1
	return &s.ctx
}

// receive and start run a handler; a panic halts the run (see caught).
func (s *Sim) receive(sl *slot, from ActorID, msg Message) {
	ok := false
	defer func() {
		if ok { // returned normally: no need to call recover
			return
		}
		if r := recover(); r != nil {
			s.halted = panicViolation(r, sl.id, s.eventCount()-1)
		}
	}()
	sl.actor.Receive(s.enter(sl), from, msg)
	ok = true
}

func (s *Sim) start(sl *slot, st Starter) {
	defer s.caught(sl)
	st.Start(s.enter(sl))
}

// caught is deferred around every handler call: it turns a panic into the
// run's halting violation.
func (s *Sim) caught(sl *slot) {
	if r := recover(); r != nil {
		s.halted = panicViolation(r, sl.id, s.eventCount()-1)
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
	ok := false
	defer func() {
		if !ok { // the invariant panicked
			if r := recover(); r != nil {
				v = &Violation{Fingerprint: fmt.Sprintf("invariant panic: %v", r), Detail: fmt.Sprintf("the invariant itself panicked: %v", r)}
			}
		}
		if v != nil {
			v.Event = s.eventCount() - 1
		}
	}()
	v = s.sys.Invariant(View{s})
	ok = true
	return v
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
		if p := &v.s.pend[i]; p.Timer == "" && !p.gone() {
			n++
		}
	}
	return n
}

// Partitioned reports whether the link from a to b is cut.
func (v View) Partitioned(a, b ActorID) bool { return !v.s.linked(a, b) }
