package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/prevote/etcdraft33"
)

// TestLibraryRelease checks that this module builds the adapter against
// the fixed release, from the module proxy (go list -m: no replace
// directive).
func TestLibraryRelease(t *testing.T) {
	require.Equal(t, "v3.3.15+incompatible", realbugstest.Release(t, "github.com/coreos/etcd"))
}

// TestFixedReleaseFuzz runs the first 200 runs of docs/real-bugs.md's
// search (which found the bug with v3.3.13 at run 10) against v3.3.15 and
// expects no violation (exit 1). The page reports 2,000 runs; a test runs
// fewer.
func TestFixedReleaseFuzz(t *testing.T) {
	realbugstest.FuzzFindsNothing(t, etcdraft33.System(),
		"--system", "etcdraft33", "--mode", "walk", "--max-steps", "300", "--externals", "10",
		"--timer-prob", "0.01", "--seed", "1", "--runs", "200")
}

// TestFixedReleaseSwarm runs 200 swarm-mode runs (demi fuzz's default
// mode, with the timer probabilities the system draws from) of 300 steps
// against v3.3.15: no violation.
func TestFixedReleaseSwarm(t *testing.T) {
	realbugstest.FuzzFindsNothing(t, etcdraft33.System(),
		"--system", "etcdraft33", "--max-steps", "300", "--externals", "10", "--seed", "1", "--runs", "200")
}

// TestFixedReleaseUnreachable checks the shipped traces of the bug, found
// with v3.3.13 in ../prevote, against v3.3.15: no schedule check tries
// reaches Liveness(leader) within the default bound of 60 deliveries. As a
// control, the same search with a bound of 30 does reach it (by starving
// the answers to the pre-votes that would elect a leader: a bounded
// property asks for progress within its bound, not under every schedule),
// so the search does follow v3.3.13's traces in v3.3.15's runs.
func TestFixedReleaseUnreachable(t *testing.T) {
	cat := record.NewCatalog(etcdraft33.System())
	for _, path := range []string{"../../../prevote/traces/etcdraft33-prevote.ref.trace", "../../../prevote/traces/etcdraft33-prevote.min.trace"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, sys, err := record.ReadFile(path, cat)
			require.NoError(t, err)
			res, err := check.Run(context.Background(), sys, tr, check.Config{MaxSchedules: 500})
			require.NoError(t, err)
			require.Equal(t, check.Unreachable, res.Outcome)

			res, err = check.Run(context.Background(), sys, tr, check.Config{
				MaxSchedules: 500, Options: record.Options{etcdraft33.OptLiveness: "30"}})
			require.NoError(t, err)
			require.Equal(t, check.Reachable, res.Outcome)
			require.Equal(t, "Liveness(leader)", res.Trace.Header.Violation.Fingerprint)
		})
	}
}
