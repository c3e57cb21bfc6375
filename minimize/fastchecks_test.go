package minimize_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// TestFastChecksChangeNothing minimizes shipped traces of four systems
// with the fast checks (remembered candidates, forked runs) and with every
// check run in full from the start: the results, the stage statistics
// (schedules and steps) and the pace are the same, byte for byte. The
// step budget is cut to keep the test short (a run cut by it is as
// deterministic as a whole one).
func TestFastChecksChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("minimizes each trace twice")
	}
	// etcdraft's minimized trace: the exact searches (shrink-search,
	// suffix-search, late-start, optimum) run there within the budget, on
	// forked states (etcdraft.Member.DeepCopy) against replayed ones.
	for _, name := range []string{"paxos-accept-below-promise", "spark-2294", "etcdraft-hardstate-before-entries.min"} {
		t.Run(name, func(t *testing.T) {
			tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", name+".trace"), examples.Catalog())
			require.NoError(t, err)
			cfg := minimize.Config{Budget: time.Minute, Workers: 2, Steps: 300_000}
			fast, err := minimize.Run(context.Background(), sys, tr, cfg)
			require.NoError(t, err)
			full, err := minimize.Run(context.Background(), sys, tr, minimize.FullChecks(cfg))
			require.NoError(t, err)
			require.Equal(t, encode(t, full.Trace), encode(t, fast.Trace))
			for _, r := range []*minimize.Result{fast, full} {
				for i := range r.Stages {
					r.Stages[i].Seconds = 0
				}
			}
			require.Equal(t, full.Stages, fast.Stages)
			require.Equal(t, full.Pace, fast.Pace)
		})
	}
}

// TestHugeWorkersBounded: a library caller's Workers far beyond the
// machine is bounded (a checker per worker would take minutes and
// gigabytes), and the result is the one -j 1 gives.
func TestHugeWorkersBounded(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", "paxos-forget-accepted.trace"), examples.Catalog())
	require.NoError(t, err)
	one, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Workers: 1, Steps: 100_000})
	require.NoError(t, err)
	huge, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Workers: 1 << 24, Steps: 100_000})
	require.NoError(t, err)
	require.Equal(t, encode(t, one.Trace), encode(t, huge.Trace))
}
