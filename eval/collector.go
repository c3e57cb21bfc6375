package eval

import (
	"context"
	"runtime/debug"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// The collector settings of demi minimize (cli/minimize.go), under which
// the studies minimize (runMinimize) and the long-trace study measures
// memory (peakMemory).
const (
	minimizeGOGC        = 400
	minimizeMemoryLimit = 768 << 20
)

// cliCollector sets demi minimize's collector settings for the process and
// returns the function that puts the previous ones back. The studies run
// one minimization at a time, so the process-wide setting is theirs.
func cliCollector() (restore func()) {
	gogc, limit := debug.SetGCPercent(minimizeGOGC), debug.SetMemoryLimit(minimizeMemoryLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gogc)
	}
}

// runMinimize is minimize.Run under demi minimize's collector settings, so
// that the seconds the studies report are those a user of the CLI waits.
// It first returns the memory earlier work in this process freed to the
// operating system: until returned, it counts against the memory limit,
// and the collector then runs far more often than in a fresh demi
// minimize process (etcdraft-hardstate-before-entries took 11.2 s after
// raft-58a's exhaustive search, 9.1 s with it returned, 9.3 s alone).
func runMinimize(ctx context.Context, sys *record.System, t *record.Trace, cfg minimize.Config) (*minimize.Result, error) {
	debug.FreeOSMemory() // what earlier studies freed would count against the memory limit
	defer cliCollector()()
	return minimize.Run(ctx, sys, t, cfg)
}
