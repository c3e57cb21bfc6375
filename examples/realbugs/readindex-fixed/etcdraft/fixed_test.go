package etcdraft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex-fixed/etcdraft"
)

// The traces of the stale read index bug, found with v3.6.0 in the sibling
// module ../readindex.
var bugTraces = []string{
	"../../readindex/traces/etcdraft-stale-read-index.ref.trace",
	"../../readindex/traces/etcdraft-stale-read-index.min.trace",
}

// TestFixedReleaseUnreachable checks each shipped trace of the bug against
// v3.7.0, the release with the fix: no schedule check tries reaches the
// violation. As a control, the same search with the leader-local-read
// switch on (a stale leader then answers reads from its own store) does
// reach it, so the search does match the v3.6.0 trace's deliveries in
// v3.7.0's runs (the two releases encode messages differently, so exact
// replay leaves the trace at the first message).
func TestFixedReleaseUnreachable(t *testing.T) {
	cat := record.NewCatalog(etcdraft.System())
	for _, path := range bugTraces {
		t.Run(path, func(t *testing.T) {
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
