//go:build !etcdraft_nohooks

package etcdraft

// The optional minimization hooks (record.Clocked, record.ClockAdvancer):
// a raft message's logical clock is its term, and a Campaign timer starts a
// new term. With them, minimization removes whole terms at once (see
// docs/minimization.md). Build with -tags etcdraft_nohooks to leave them
// out; docs/examples.md reports minimization with and without them.

// LogicalClock returns the message's term (record.Clocked).
func (w Wire) LogicalClock() int { return int(w.Msg.GetTerm()) }

// AdvancesClock reports that a Campaign starts a new term
// (record.ClockAdvancer).
func (Campaign) AdvancesClock() bool { return true }
