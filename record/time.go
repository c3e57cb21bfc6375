package record

import "math"

// Virtual time: a system may give its timers durations (SetTimerAfter) and
// declare a TimeModel (System.Time). A run then keeps a logical clock that
// only timers move, and a fuzz run fires timers the way real time would:
// in deadline order, and never while a message that would have arrived by
// then is still in flight. Without a time model a timer may fire at any
// step, which is what a fuzzer exploring every interleaving wants, but
// what makes runs of a real library (elections every few deliveries)
// unlike its runs in production.
//
// Only fuzzing obeys the clock. Replay follows a trace's order whatever
// the deadlines (the order it recorded obeyed them), and minimization
// follows schedules loosely, so it may fire a timer before its deadline
// when that still reproduces the violation: a minimized trace is a
// schedule the code allows, if not one a clock would. The clock is
// recorded on every delivery of a run with a time model (Event.At) so
// that demi show can tell.

// VirtualTime is a point or a span of a run's virtual time, in the
// system's own unit (a tick).
type VirtualTime int64

// TimeModel is how a run with virtual time treats messages and timers
// (System.Time).
type TimeModel struct {
	// MaxDelay bounds the time a message spends in flight: a message sent
	// at time t is delivered (or lost to a crash or a partition) before
	// the clock passes t+MaxDelay, so no timer due later fires while it
	// is pending.
	MaxDelay VirtualTime
}

// untimed is the deadline of a timer armed without a duration (SetTimer):
// it may fire at any step, as without a time model, and does not move the
// clock.
const untimed VirtualTime = math.MinInt64

// SetTimerAfter arms the timer named key to fire after d units of virtual
// time: msg will be delivered to this actor when the run's clock reaches
// now+d, in deadline order with the other timers of the run. A pending
// timer with the same key is replaced, so setting it again resets its
// deadline. In a run without a time model (see System.Time) the duration
// is ignored and SetTimerAfter is SetTimer.
func (c *Context) SetTimerAfter(key string, d VirtualTime, msg Message) {
	c.sim.mustRegister(c.self, msg)
	c.sim.cancelTimer(c.slot.index, key)
	due := untimed
	if c.sim.tm != nil {
		due = c.sim.now + max(d, 0)
	}
	c.sim.send(c.slot.index, c.self, c.self, msg, key, c.event, due)
}

// TimeModel returns the run's time model, or nil for a run without
// virtual time.
func (s *Sim) TimeModel() *TimeModel {
	if s.tm == nil {
		return nil
	}
	tm := *s.tm
	return &tm
}

// Now returns the run's virtual time: the latest deadline of a timer that
// has fired (0 without a time model).
func (s *Sim) Now() VirtualTime { return s.now }

// due returns the deadline of a message sent now (timers give theirs).
func (s *Sim) dueMessage() VirtualTime {
	if s.tm == nil {
		return 0
	}
	return s.now + s.tm.MaxDelay
}

// advance moves the clock to the deadline of the timer at position at,
// about to fire, if it lies ahead.
func (s *Sim) advance(at int) {
	if m := &s.meta[at]; m.link == linkTimer && m.due != untimed && m.due > s.now {
		s.now = m.due
	}
}

// timeBound returns, for a fuzz run with a time model, the deadline a timer
// must not pass to fire now: the earliest deadline of a timed timer that
// may fire (a timer of a running actor), if no message in flight to a
// running actor is due before it, and -1 (no timed timer may fire) if one
// is. Untimed timers may always fire.
func (s *Sim) timeBound() VirtualTime {
	first := VirtualTime(math.MaxInt64)
	for _, m := range s.meta {
		if m.link == linkTimer && m.due != untimed && m.due < first && s.runningAt(m.to) {
			first = m.due
		}
	}
	// Messages are due in send order (the clock never goes back), so the
	// first one in flight to a running actor is the earliest due.
	for _, m := range s.meta {
		if m.link >= 0 && s.runningAt(m.to) {
			if m.due < first {
				return -1
			}
			break
		}
	}
	return first
}

// mayFire reports whether the timer at position at may fire under bound
// (see timeBound).
func (s *Sim) mayFire(at int32, bound VirtualTime) bool {
	d := s.meta[at].due
	return d == untimed || d <= bound
}
