package optimal

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// idle reports whether c, f's child by a delivery to actor a, is f without
// the message delivered: a changed no state, sent nothing, cancelled no
// timer. (It records a's new state hash in c either way.) Such a child is
// dominated by f: on an unordered network a pending message enables
// nothing and disables nothing, so every schedule from c also runs from f,
// one delivery cheaper, through the same actor states (the message stays
// pending or a timer with its key replaces it); its violation, a function
// of the actors' states, is reached sooner. It is never expanded.
//
// The delivery's key tk (the receiver's state hash and the message's
// content key) is remembered when the handler neither sent nor cancelled
// anything and left its state as it was: it is then idle from any state,
// whatever else is pending, and knownIdle skips it without running it.
func (s *walker) idle(f, c *frame, a int, tk uint64) bool {
	if c.sim.Sent() != f.sim.Sent() || c.sim.NumPending() != f.sim.NumPending()-1 || c.sim.Halted() != nil {
		return false
	}
	h := s.actorHash(c.sim, a)
	c.ah = slices.Clone(f.ah)
	c.ah[a] = h
	c.dirty &^= 1 << a
	if h != f.ah[a] {
		return false
	}
	if c.sim.Cancels() == f.sim.Cancels() && !s.cfg.noMemo {
		if len(s.memo.idle) >= maxMemo {
			clear(s.memo.idle)
		}
		s.memo.idle[tk] = struct{}{}
	}
	return true
}

// knownIdle reports whether delivering p from f, an expanded state, is
// known to be idle (see idle).
func (s *walker) knownIdle(f *frame, p *record.Pending) bool {
	if !s.dominance || s.cfg.noMemo {
		return false
	}
	_, ok := s.memo.idle[transKey(f, s.index[p.To], s.ckey[p.ID])]
	return ok
}

// Undelivered external messages. With Subsets, a cheapest reproducer
// delivers every message an external event it applies sends: were one
// still pending at the end, the same schedule without that external
// event would reproduce the violation one event cheaper (no actor saw the
// message, and a violation is a function of the actors' states), and it
// is a schedule of the search. So from a state on the way of a cheapest
// reproducer, each pending external message costs at least its delivery,
// and a state with more of them than budget left is not on such a way:
// it is not expanded. The bound is admissible (it never exceeds what a
// cheapest reproducer still spends), so the first reproducer found is
// still a cheapest one; only schedules that are not cheapest are cut.
