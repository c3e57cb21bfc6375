package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
	"github.com/demi-project/demi/record"
)

// TestLibraryRelease checks that this module builds examples/etcdraft
// against the fixed release, from the module proxy (go list -m: no
// replace directive).
func TestLibraryRelease(t *testing.T) {
	require.Equal(t, "v3.7.0", realbugstest.Release(t, "go.etcd.io/raft/v3"))
}

// TestFixedReleaseFuzz runs the first 20 runs of docs/real-bugs.md's
// search (which found the bug with v3.6.0 at run 375) against v3.7.0 and
// expects no violation (exit 1). The page reports 2,000 runs; a test runs
// fewer.
func TestFixedReleaseFuzz(t *testing.T) {
	realbugstest.FuzzFindsNothing(t, etcdraft.WithReadRetry(),
		"--system", "etcdraft", "--opt", "read-weight=10", "--opt", "read-retry=true",
		"--opt", "restart-weight=0", "--opt", "partition-weight=0", "--externals", "60",
		"--max-steps", "1000", "--timer-prob", "0.1", "--mode", "walk", "--seed", "1", "--runs", "20")
}

// TestFixedReleaseUnreachable checks each shipped trace of the bug, found
// with v3.6.0 in the sibling module ../readindex, against v3.7.0, the
// release with the fix: no schedule check tries reaches the violation. As
// a control, the same search with the leader-local-read switch on (a stale
// leader then answers reads from its own store) does reach it, so the
// search does match the v3.6.0 trace's deliveries in v3.7.0's runs (the
// two releases encode messages differently, so exact replay leaves the
// trace at the first message).
func TestFixedReleaseUnreachable(t *testing.T) {
	cat := record.NewCatalog(etcdraft.WithReadRetry())
	for _, path := range []string{
		"../../../readindex/traces/etcdraft-stale-read-index.ref.trace",
		"../../../readindex/traces/etcdraft-stale-read-index.min.trace",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, sys, err := record.ReadFile(path, cat)
			require.NoError(t, err)
			res, err := check.Run(context.Background(), sys, tr, check.Config{MaxSchedules: 500})
			require.NoError(t, err)
			require.Equal(t, check.Unreachable, res.Outcome)

			res, err = check.Run(context.Background(), sys, tr, check.Config{
				MaxSchedules: 500, Options: record.Options{etcdraft.BugLeaderLocalRead: "true"}})
			require.NoError(t, err)
			require.Equal(t, check.Reachable, res.Outcome)
			require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
		})
	}
}
