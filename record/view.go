package record

// The View that invariants, conditions and generators read, and the
// invariant check.

// View returns a read-only view of the actors for invariants and display.
func (s *Sim) View() View { return View{s} }

// Check returns the violation of a panicked handler, or else that of the
// system's bounded-liveness property (Liveness; kept once a window closed
// without progress), or else the system's invariant over the current
// states (nil when it holds).
func (s *Sim) Check() (v *Violation) {
	if s.halted != nil {
		return s.halted
	}
	if s.live.expired != nil {
		v := *s.live.expired // kept: a later fault does not undo it
		return &v
	}
	if s.sys.Invariant == nil {
		return nil
	}
	returned := false
	defer s.recoverInvariant(&v, &returned)
	v = s.sys.Invariant(View{s})
	returned = true
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

// NumInFlight returns the number of pending messages that are not timers
// (Sim.InFlight lists every pending message).
func (v View) NumInFlight() int {
	v.s.readNetwork = true
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
