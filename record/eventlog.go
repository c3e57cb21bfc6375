package record

import (
	"slices"
)

// The event log: what a run has executed, in order. A Sim records Events
// directly, or (a lazy Sim, for fuzz campaigns) compact entries that become
// Events only when asked for.

// entry is one event of the log in compact form: a delivery names its
// sender and receiver by slot (len(members) for External); an external
// event is s.ext[from].
type entry struct {
	msg      Message
	timer    string
	at       VirtualTime // Event.At
	id       MsgID
	cause    int
	from, to int32
	kind     Kind
}

// Events returns the events executed so far. The slice is owned by the Sim.
func (s *Sim) Events() []Event {
	if n := s.log.size() - len(s.events); s.lazy && n > 0 {
		if cap(s.events)-len(s.events) < n {
			s.events = slices.Grow(s.events, max(n, len(s.events)))
		}
		from := len(s.events)
		s.events = s.events[:s.log.size()]
		for i := from; i < len(s.events); i++ {
			s.fill(&s.events[i], i)
		}
	}
	return s.events
}

// fill materializes the log's entry i into *e, field by field (see
// deliverAt).
func (s *Sim) fill(e *Event, i int) {
	en := s.log.at(i)
	if en.kind != Deliver {
		*e = *s.ext.at(int(en.from))
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
	if en.at != 0 {
		e.At = en.at
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
		s.log.reserve(n)
	} else {
		s.events = slices.Grow(s.events, n)
	}
}

// CompactLog keeps the run's event log in compact form from now on, as a
// fuzz campaign's runs do: a run most of whose logs are thrown away (the
// schedules of a check, and their forks) never pays for 176-byte Events
// with eight pointer words each, and Events and Trace build the Events
// when asked, the same ones. After the first event it does nothing.
func (s *Sim) CompactLog() {
	if s.lazy || s.nolog || s.eventCount() > 0 {
		return
	}
	s.lazy = true
	s.log, s.ext = chunks[entry]{}, withLen[Event](extLen)
	s.log.reserve(cap(s.events))
	s.events = nil
}

// eventCount is the length of the event log.
func (s *Sim) eventCount() int {
	if s.nolog {
		return s.nevts
	}
	if s.lazy {
		return s.log.size()
	}
	return len(s.events)
}

// roomForEvent makes room for one more event in the Events of a run that
// is not lazy (a lazy run's log grows by chunks), doubling the log when it
// is full: append grows large slices by only a quarter at a time, which
// copies a long log (176 bytes an event, pointers included) over and over.
func (s *Sim) roomForEvent() {
	if !s.lazy {
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
		return s.ext.at(int(s.log.at(i).from)).ID
	}
	return s.events[i].ID
}

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
