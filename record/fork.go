package record

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// Fork returns a run that continues independently from this one's present
// state: the same actors, storage, random sources, messages in flight, cut
// links and event log, so that the same events applied to either give the
// same run. It is how an exhaustive search (package optimal) tries every
// next event of a state without replaying the schedule that led there.
//
// Actors are copied on write. The fork and the original share every
// actor's value, stable storage and random source until one of them next
// runs a handler of that actor (a delivery to it, its start or restart),
// which first takes its own deep copy of them (field by field, unexported
// fields included, as Storage copies values). A fork therefore costs the
// network state, not the actors' states, and a delivery in a fork copies
// only its receiver. An actor must keep its whole state in its value (no
// state reached through a function value or shared with other actors),
// which is what the determinism of a run already asks of it. When a copy
// meets a function or channel value (a method value bound to the original,
// as etcd raft's RawNode keeps), the copy would still reach the original,
// and the run reports it by ForkError; an actor that implements
// DeepCopier copies itself instead.
//
// A halted run forks into a halted run.
func (s *Sim) Fork() *Sim {
	f := *s
	f.slots = slices.Clone(s.slots)
	for i := range f.slots {
		s.slots[i].shared = true
		f.slots[i].shared = true
	}
	// Room for a few more messages: a fork is forked to deliver one, and
	// the handler sends some.
	f.pend = append(make([]Pending, 0, len(s.pend)+forkRoom), s.pend...)
	f.meta = append(make([]pmeta, 0, len(s.meta)+forkRoom), s.meta...)
	f.seen = slices.Clone(s.seen)
	f.links = slices.Clone(s.links)
	if s.chainv != nil {
		f.chainv = append(make([]chainLink, 0, len(s.chainv)+forkRoom), s.chainv...)
	}
	f.enab = nil
	f.cut = slices.Clone(s.cut)
	// The logs only grow: the fork shares their prefix, clipped so that
	// its next event is written to a copy of its own.
	f.events = slices.Clip(s.events)
	f.log = s.log.fork()
	f.ext = s.ext.fork()
	f.sch.hd = slices.Clone(s.sch.hd)
	f.sch.tm = slices.Clone(s.sch.tm)
	f.sch.cnt = slices.Clone(s.sch.cnt)
	f.ctx = Context{sim: &f}
	return &f
}

// ForkInto is Fork, made in dst's memory: the fork reuses the lists of
// dst, a run from an earlier ForkInto (or nil, which makes it Fork). It is
// for the many short-lived forks of a search (a state's last step, only
// checked for a violation): dst's previous contents are lost, so dst must
// be a run nothing else uses and that was never forked.
func (s *Sim) ForkInto(dst *Sim) *Sim {
	if dst == nil || dst == s {
		return s.Fork()
	}
	old := *dst
	*dst = *s
	dst.slots = reuse(old.slots, s.slots)
	for i := range dst.slots {
		s.slots[i].shared = true
		dst.slots[i].shared = true
	}
	dst.pend = reuse(old.pend, s.pend)
	dst.meta = reuse(old.meta, s.meta)
	dst.seen = reuse(old.seen, s.seen)
	dst.links = reuse(old.links, s.links)
	dst.chainv = reuse(old.chainv, s.chainv)
	dst.enab = old.enab
	dst.cut = reuse(old.cut, s.cut)
	dst.events = slices.Clip(s.events)
	dst.log = s.log.fork()
	dst.ext = s.ext.fork()
	dst.sch.hd = reuse(old.sch.hd, s.sch.hd)
	dst.sch.tm = reuse(old.sch.tm, s.sch.tm)
	dst.sch.cnt = reuse(old.sch.cnt, s.sch.cnt)
	dst.ctx = Context{sim: dst}
	return dst
}

// reuse copies src into buf's memory, keeping a nil src nil.
func reuse[T any](buf, src []T) []T {
	if src == nil {
		return nil
	}
	return append(buf[:0], src...)
}

// Sent returns how many messages the run has sent, timers included (the
// ID of the last one).
func (s *Sim) Sent() MsgID { return s.nextID }

// Cancels returns how many times handlers of the run called
// Context.CancelTimer (whether a timer was pending or not). With Sent, it
// tells a search that a handler changed the network only by consuming its
// message.
func (s *Sim) Cancels() int { return s.cancels }

// NumEvents returns the number of events of the run so far (the next
// event's index, Context.EventIndex).
func (s *Sim) NumEvents() int { return s.eventCount() }

// NumPending returns the number of pending messages, timers included.
func (s *Sim) NumPending() int { return len(s.pend) - s.holes }

// Observed reports whether a handler of this run or of a run it was
// forked from read the event clock (Context.EventIndex), and whether a
// check, a condition or a fuzz generator read the network
// (View.NumInFlight). A search that identifies states by the actors'
// states alone needs to know: an actor that stamps its state with the
// clock depends on the interleaving of every actor, and an invariant
// that reads the network depends on the messages in flight.
func (s *Sim) Observed() (clock, network bool) { return s.readClock, s.readNetwork }

// forkRoom is the spare room a fork's message lists get.
const forkRoom = 6

// DropLog forgets the run's event log and stops keeping one: Events and
// Trace list no events from then on, and neither do the run's forks, which
// then copy no log at all. Events are still counted (a violation and a
// message still name the event that caused them). It is for a search that
// forks a run at every state and keeps its own record of the decisions
// that led there (package optimal rebuilds the run it reports through a
// Driver).
func (s *Sim) DropLog() {
	s.nevts = s.eventCount()
	s.nolog = true
	s.events, s.log, s.ext = nil, chunks[entry]{}, chunks[Event]{}
}

// own gives the run its own copy of the actor in sl, its storage and its
// random source, if they are shared with a fork (see Fork). Every handler
// call and every boot goes through it first. It returns an error when the
// actor's copy shares memory with the original (see copyActor); the copy
// is made all the same.
func (sl *slot) own() error {
	if !sl.shared {
		return nil
	}
	sl.shared = false
	var err error
	if sl.actor != nil {
		sl.actor, err = copyActor(sl.id, sl.actor)
	}
	// Stored values are copies that nothing changes in place (Put and Get
	// copy): the map is all a write could change.
	sl.storage = maps.Clone(sl.storage)
	if sl.rng != nil {
		sl.rng = deepCopy(sl.rng).(*rand.Rand)
	}
	return err
}

// copyActor copies actor a for a fork: by its own DeepCopy if it has one,
// else field by field. A function or channel value reached from its fields
// (a method value bound to the original, a closure over it) cannot be
// copied: the copy would call into, or share, the original, so the fork
// would not be independent of it, and copyActor says so.
func copyActor(id ActorID, a Actor) (Actor, error) {
	if d, ok := a.(DeepCopier); ok {
		return d.DeepCopy().(Actor), nil
	}
	c, shares := reflectCopyShares(a)
	if shares != nil {
		return c.(Actor), fmt.Errorf("actor %s (%T) holds a %s value, which a copy of it would share with the original, so its runs cannot be forked; implement record.DeepCopier for it", id, a, shares)
	}
	return c.(Actor), nil
}

// ForkError returns why a fork of this run, or of a run it was forked
// from, is not independent of the run it came from (the first actor that
// could not be copied, see Fork), or nil. A search over forks must stop
// when it is not nil: its forks may have changed each other's actors.
func (s *Sim) ForkError() error { return s.forkErr }
