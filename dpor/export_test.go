package dpor

// ForkStats returns how many schedules of c's checks started from a
// snapshot, and how many events they did not re-execute.
func (c *Checker) ForkStats() (schedules, skipped int64) { return c.forks.forked, c.forks.skipped }

// Snapshots returns how many snapshots c holds.
func (c *Checker) Snapshots() int { return len(c.forks.list) }

// SetMinStride sets the fewest plan steps between two snapshots, so that
// short plans fork too.
func (c *Checker) SetMinStride(n int) { c.forks.minStride = n }
