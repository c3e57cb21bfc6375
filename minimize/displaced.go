package minimize

import "context"

// The trace internals-first displaced, retargeted.
//
// internals-first (portfolio.go) ends with two local minima: the main
// line's best trace and its own result. It keeps the one with fewer
// deliveries plus externals, but that size says little about where the
// late stages can take either: on raft-58a seed 11434 the main line ends
// the rounds at 64 deliveries (E:15) = 79, the second pass at 65 (E:13) =
// 78, which replaces it; retarget then takes the main line's trace to 19
// (E:12) but the second pass's only to 54 (E:13) (a four-member route
// with three leaderships, where retarget's moves find no shortcut).
//
// So when internals-first's result replaced the main line's best trace,
// the retarget-displaced stage runs once, right after retarget: the
// retarget stage's moves on the displaced trace, in a forked minimizer
// (the same checkers, the schedules per check the rounds ended with, the
// reorder moves left out if every one had failed on that trace, as
// retarget leaves them out on a best trace the reorder stage tried),
// on an allowance of its own, the same as retarget's (a quarter of the
// step budget). Its result replaces the best trace when it has fewer
// deliveries plus externals, and the late stages go on from there. The
// stage is a fixed sequence of checks, counted in steps like every
// stage, so the result does not depend on time or on Workers; it costs
// nothing on traces whose rounds internals-first did not change.

// retargetDisplaced runs the retarget stage's moves on the trace
// internals-first displaced and offers the result when it has fewer
// deliveries plus externals than the best trace.
func (m *minimizer) retargetDisplaced(ctx context.Context) error {
	f := m.fork(m.displaced)
	f.escalation = m.escalation
	if m.displacedReordered {
		f.reordered = m.displaced
	}
	f.limit.Store(m.limit.Load())
	err := f.retarget(ctx)
	m.steps.Store(f.steps.Load())
	m.schedules.Add(f.schedules.Load())
	if b := f.snapshotBest(); total(b) < total(m.snapshotBest()) {
		m.offer(b)
	}
	return err
}

// displaces reports whether internals-first displaced a best trace
// (retarget-displaced applies).
func (m *minimizer) displaces() bool { return m.displaced != nil }
