package record

import (
	"fmt"
	"slices"
)

// The network: the messages in flight (the pending list, kept in send
// order with holes where messages were removed), the enabled set the
// network semantics allow (FIFO queue heads and timers), partitions.

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

// Delivery returns the event that delivers p.
func (p *Pending) Delivery() Event {
	return Event{Kind: Deliver, ID: p.ID, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer, Cause: p.Cause}
}

// gone reports whether p is a hole left by a removed message (see Sim.pend).
func (p *Pending) gone() bool { return p.to < 0 }

// Removed reports whether p is a hole in the list Sim.InFlightHoles
// returns: a message that has been delivered, dropped or cancelled.
func (p *Pending) Removed() bool { return p.gone() }

// Slots returns the slots (Sim.Slot) of p's sender and receiver; to is
// negative once p is removed. Comparing slots is cheaper than comparing
// actor names for a caller that scans the pending messages at every step.
func (p *Pending) Slots() (from, to int32) { return p.from, p.to }

// pmeta is what the scheduler needs of a pending message: its link
// (from*(members+1)+to, or linkGone or linkTimer) and its receiver's slot.
// With a time model, due is its deadline (see time.go).
type pmeta struct {
	link, to int32
	due      VirtualTime
}

const (
	linkGone  = -1 // a hole
	linkTimer = -2 // a timer: not subject to FIFO order
)

// linkIndex is what the run keeps per link (and per actor's timers), once
// OnLink is first called (a fuzz run never pays for it): the positions in
// the pending list of its first and last pending messages (-1: none),
// which Sim.chainv chains in send order, so that OnLink finds a link's
// messages without scanning the others'.
type linkIndex struct{ first, last int32 }

// chainLink is a pending message's place in its link's chain: the
// positions of the link's messages before and after it (-1: none).
type chainLink struct{ prev, next int32 }

// linkKey returns the entry of Sim.links for pending metadata m: its
// link, or for a timer (len(members)+1)² plus its receiver's slot.
func (s *Sim) linkKey(m pmeta) int {
	if m.link == linkTimer {
		n := len(s.members) + 1
		return n*n + int(m.to)
	}
	return int(m.link)
}

// indexLinks builds Sim.links and Sim.chainv from the pending list (at
// OnLink's first call, and after the list was compacted).
func (s *Sim) indexLinks() {
	if s.links == nil {
		n := len(s.members) + 1
		s.links = make([]linkIndex, n*n+n)
	}
	for k := range s.links {
		s.links[k] = linkIndex{first: -1, last: -1}
	}
	s.chainv = slices.Grow(s.chainv[:0], len(s.meta))[:len(s.meta)]
	for i := range s.meta {
		if s.meta[i].link != linkGone {
			s.chain(i)
		}
	}
}

// chain appends the pending message at position i to its link's chain.
func (s *Sim) chain(i int) {
	l := &s.links[s.linkKey(s.meta[i])]
	s.chainv[i] = chainLink{prev: l.last, next: -1}
	if l.last >= 0 {
		s.chainv[l.last].next = int32(i)
	} else {
		l.first = int32(i)
	}
	l.last = int32(i)
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

// send puts a message from the actor in slot fi into the network. due is
// a timer's deadline (untimed without one); a message's is the time model's.
func (s *Sim) send(fi int32, from, to ActorID, msg Message, timer string, cause int, due VirtualTime) MsgID {
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
	} else {
		due = s.dueMessage()
	}
	s.meta = append(s.meta, pmeta{link: link, to: ti, due: due})
	if s.links != nil {
		s.chainv = append(s.chainv, chainLink{})
		s.chain(len(s.meta) - 1)
	}
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
	if s.links != nil {
		for i := s.OnLink(self, self, true); i >= 0; i = s.NextOnLink(i) {
			if s.pend[i].Timer == key {
				s.remove(i)
				return
			}
		}
		return
	}
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
	if s.links != nil {
		s.unlink(i)
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
		if s.links != nil {
			s.chainv = s.chainv[:n]
		}
	}
	if s.holes > 32 && 2*s.holes > len(s.pend) {
		s.compact()
	}
}

// unlink takes s.pend[i] out of Sim.links (before remove makes it a hole).
func (s *Sim) unlink(i int) {
	c, l := s.chainv[i], &s.links[s.linkKey(s.meta[i])]
	if c.prev >= 0 {
		s.chainv[c.prev].next = c.next
	} else {
		l.first = c.next
	}
	if c.next >= 0 {
		s.chainv[c.next].prev = c.prev
	} else {
		l.last = c.prev
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
	if s.links != nil {
		s.indexLinks()
	}
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
	if s.links != nil {
		s.indexLinks()
	}
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

// InFlightHoles returns InFlight's messages in send order without
// compacting the list first: among them are the holes that removed
// messages leave until the next compaction, which Pending.Removed reports
// (a hole keeps some of its fields: skip it before reading any). A caller
// that scans the pending messages at every step (dpor matching a plan)
// reads them so and spares the copy of the list that InFlight makes after
// every delivery. The slice is owned by the Sim.
func (s *Sim) InFlightHoles() []Pending { return s.pend }

// OnLink returns the position in InFlightHoles of the first message in
// flight from the actor in slot from to the one in slot to (Sim.Slot), or
// -1 when there is none: with timer, of the first timer of the actor in
// slot to (whatever its key), else of the first ordinary message. NextOnLink
// returns the next on the same link. The run chains each link's messages
// (and each actor's timers) in send order, so a caller that looks for one
// link's messages at every step (dpor matching a plan) never reads the
// other links'.
func (s *Sim) OnLink(from, to int32, timer bool) int {
	n := int32(len(s.members) + 1)
	if to < 0 || from < 0 || to >= n || from >= n {
		return -1
	}
	if s.links == nil {
		s.indexLinks()
	}
	m := pmeta{link: from*n + to, to: to}
	if timer {
		m.link = linkTimer
	}
	for i := s.links[s.linkKey(m)].first; i >= 0; i = s.chainv[i].next {
		if !timer || s.pend[i].from == from {
			return int(i)
		}
	}
	return -1
}

// NextOnLink returns the position of the message in flight after the one
// at position i (an answer of OnLink or NextOnLink) on the same link (for
// a timer: the next timer of the same actor and sender), or -1 when there is
// none.
func (s *Sim) NextOnLink(i int) int {
	from, timer := s.pend[i].from, s.meta[i].link == linkTimer
	for j := s.chainv[i].next; j >= 0; j = s.chainv[j].next {
		if !timer || s.pend[j].from == from {
			return int(j)
		}
	}
	return -1
}

// NotPendingError reports a delivery of a message that is not pending, or
// not deliverable under the network semantics.
type NotPendingError struct {
	ID     MsgID
	Reason string
}

func (e *NotPendingError) Error() string { return fmt.Sprintf("message #%d %s", e.ID, e.Reason) }

// Deliverable reports whether pending message id may be delivered now:
// its receiver is running and, under FIFO, it is the head of its
// sender-receiver queue (timers always are).
func (s *Sim) Deliverable(id MsgID) bool {
	_, why := s.deliverable(id)
	return why == nil
}

// deliverable returns message id's position in the pending list, or why it
// may not be delivered now.
func (s *Sim) deliverable(id MsgID) (int, *NotPendingError) {
	at := s.find(id)
	if at < 0 {
		return -1, &NotPendingError{ID: id, Reason: "is not pending"}
	}
	if why := s.blocked(at); why != nil {
		return -1, why
	}
	return at, nil
}

// blocked returns why s.pend[at] may not be delivered now, or nil.
func (s *Sim) blocked(at int) *NotPendingError {
	p := &s.pend[at]
	if s.sem == FIFO && p.Timer == "" {
		for i := 0; i < at; i++ {
			q := &s.pend[i]
			if q.from == p.from && q.to == p.to && q.Timer == "" { // holes have to < 0
				return &NotPendingError{ID: p.ID, Reason: fmt.Sprintf("is queued behind #%d (FIFO %s→%s)", q.ID, p.From, p.To)}
			}
		}
	}
	if !s.runningAt(p.to) {
		return &NotPendingError{ID: p.ID, Reason: "is addressed to " + string(p.To) + ", which is not running"}
	}
	return nil
}
