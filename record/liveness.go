package record

import (
	"fmt"
	"strings"
)

// Liveness is a bounded-liveness property of a system: after the last
// external fault, within Within deliveries, Holds is true at least once.
// "No leader is ever elected once the partition is in place" or "a
// proposal never commits" are losses of progress that no state-based
// invariant catches; bounding them by a number of deliveries turns them
// into violations that fuzzing finds and minimization cuts down like any
// other.
//
// The runtime checks it (a Sim of a system with a Liveness whose Within is
// positive for the run's options). A window opens at every fault (see
// Fault) and at the start of the run; from then on Holds is evaluated
// after the fault and after every delivery, until it is true once, which
// closes the window. If Within deliveries pass in a window with Holds
// never true, the run has violated the property at that delivery: the
// violation is kept (a later fault does not undo it) and [Sim.Check]
// reports it before the invariant. Its fingerprint is "Liveness(NAME)",
// the same whatever the schedule, so "same failure" holds while a trace
// is minimized; its detail says how many deliveries passed since which
// event.
//
// The bound is in deliveries (timers included), not time: a window
// closes when the system's own messages have had Within chances to make
// progress, so Within must allow for the schedules the fuzzer makes (a
// timer that fires before a vote arrives costs an election). Choose it
// from runs of a correct version, and keep Holds true whenever no
// progress can be asked for (no majority can talk, say): the property
// demands progress only where the system could make it. See
// docs/writing-a-system.md, "Bounded liveness", for its meaning and its
// limits.
type Liveness struct {
	// Name names the property in its fingerprint, "Liveness(Name)".
	Name string
	// Doc says what Holds means, for a person: the detail of a violation
	// reads "no DOC within N deliveries after ...".
	Doc string
	// Within returns the bound N for the run's options; 0 or less turns
	// the property off (an option such as "liveness=40" lets a user
	// choose; declare its bounds).
	Within func(o Options) int
	// Holds reports whether the progress the property asks for is there
	// now.
	Holds func(v View) bool
	// Fault reports whether an external event opens a new window; nil
	// means DefaultFault.
	Fault func(e Event) bool
}

// DefaultFault is the faults that open a liveness window when a Liveness
// names none: starting, killing and restarting an actor, partitioning and
// healing the network. External messages (client requests) and wait
// markers do not.
func DefaultFault(e Event) bool {
	switch e.Kind {
	case Start, Kill, Restart, Partition, Heal:
		return true
	}
	return false
}

// Fingerprint is the fingerprint of the property's violations.
func (l *Liveness) Fingerprint() string { return "Liveness(" + l.Name + ")" }

// IsLiveness reports whether v is a bounded-liveness violation.
func IsLiveness(v *Violation) bool {
	return v != nil && strings.HasPrefix(v.Fingerprint, "Liveness(") && strings.HasSuffix(v.Fingerprint, ")")
}

// liveWindow is a run's state of its bounded-liveness property: a value
// (Fork copies it with the Sim).
type liveWindow struct {
	within  int        // the bound of this run; 0: no property
	from    int        // deliveries when the window opened
	fault   int        // event index of the fault that opened it (-1: the run's start)
	held    bool       // Holds was true in this window
	expired *Violation // the violation, once a window closed without progress
}

// liveStart sets the property up for a new run.
func (s *Sim) liveStart() {
	s.live = liveWindow{fault: -1}
	if l := s.sys.Liveness; l != nil && l.Within != nil && l.Holds != nil {
		s.live.within = l.Within(s.opts)
	}
}

// liveApplied opens a new window if external event e, just applied as
// event at, is a fault.
func (s *Sim) liveApplied(e *Event, at int) {
	if s.live.within <= 0 || s.live.expired != nil || s.halted != nil {
		return
	}
	fault := s.sys.Liveness.Fault
	if fault == nil {
		fault = DefaultFault
	}
	if !fault(*e) {
		return
	}
	s.live.from, s.live.fault, s.live.held = s.deliveries, at, false
	s.liveEval()
}

// liveDelivered evaluates the property after a delivery, while the
// current window is open.
func (s *Sim) liveDelivered() {
	if s.live.within <= 0 || s.live.held || s.live.expired != nil || s.halted != nil {
		return
	}
	s.liveEval()
}

// liveEval evaluates Holds and closes the window: held, or expired when
// Within deliveries have passed.
func (s *Sim) liveEval() {
	l := s.sys.Liveness
	if s.liveHolds(l) {
		s.live.held = true
		return
	}
	if s.live.expired != nil { // Holds panicked
		return
	}
	if n := s.deliveries - s.live.from; n >= s.live.within {
		since := "the run's start"
		if s.live.fault >= 0 {
			since = fmt.Sprintf("the last fault (event %d)", s.live.fault)
		}
		doc := l.Doc
		if doc == "" {
			doc = l.Name
		}
		s.live.expired = &Violation{Fingerprint: l.Fingerprint(),
			Detail: fmt.Sprintf("no %s within %d deliveries after %s", doc, s.live.within, since),
			Event:  s.eventCount() - 1}
	}
}

// liveHolds calls Holds; a panic in it becomes the run's violation, as a
// panic in the invariant does.
func (s *Sim) liveHolds(l *Liveness) (ok bool) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if r := recover(); r != nil {
			s.live.expired = &Violation{Fingerprint: fmt.Sprintf("invariant panic: %v", r),
				Detail: fmt.Sprintf("the liveness property %s itself panicked: %v", l.Name, r), Event: s.eventCount() - 1}
		}
	}()
	ok = l.Holds(View{s})
	returned = true
	return ok
}

// LivenessWindow reports the run's bounded-liveness window: the bound
// (0: the run has no property), the deliveries since the window opened,
// and whether the property held in it. Displays use it; checks go
// through Check.
func (s *Sim) LivenessWindow() (within, since int, held bool) {
	return s.live.within, s.deliveries - s.live.from, s.live.held
}
