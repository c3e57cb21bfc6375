// Package collector holds the garbage-collector settings demi minimize runs
// under (cli) and the evaluation minimizes under (eval), so that the
// evaluation's seconds are what a user of the CLI waits.
//
// Minimization allocates a fresh run per schedule: a lazier collector is
// markedly faster while the heap stays small. On long traces a lazier one
// takes the heap to the soft limit, where the collector runs more, not less
// (docs/minimization.md, "Memory", has the measurements).
package collector

const (
	// Short is the GOGC of a trace of fewer than LongTrace deliveries.
	Short = 800
	// Long is the GOGC of a trace of LongTrace deliveries or more.
	Long = 400
	// LongTrace is where Long takes over from Short, in deliveries.
	LongTrace = 5000
	// MemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
	// unless GOMEMLIMIT sets one: the collector's slack does not take a
	// long trace past a gigabyte.
	MemoryLimit = 768 << 20
)

// Percent returns the GOGC of a trace of the given deliveries.
func Percent(deliveries int) int {
	if deliveries < LongTrace {
		return Short
	}
	return Long
}
