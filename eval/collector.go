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
func runMinimize(ctx context.Context, sys *record.System, t *record.Trace, cfg minimize.Config) (*minimize.Result, error) {
	defer cliCollector()()
	return minimize.Run(ctx, sys, t, cfg)
}
