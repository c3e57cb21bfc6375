package etcdraft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex/etcdraft"
)

// TestMinimizeWithinTarget minimizes the shipped fuzz trace with default
// settings: the same violation, at most 1.25 times the reference's
// deliveries and events (the shipped minimized trace is 29 deliveries and
// 6 externals, the reference 30 and 6). The route there runs through the
// inject pass (a client write in place of the fuzz run's first elections),
// which an order of the move tier that let small trades go first once lost
// (95 deliveries and 12 externals; docs/minimization.md, "Move order").
func TestMinimizeWithinTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("minimizes a 534-delivery trace (about 10 M steps)")
	}
	cat := record.NewCatalog(etcdraft.System())
	tr, sys, err := record.ReadFile("../traces/etcdraft-stale-read-index.trace", cat)
	require.NoError(t, err)
	ref, _, err := record.ReadFile(referenceTrace, cat)
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{})
	require.NoError(t, err)
	got := res.Trace.Header
	require.Equal(t, tr.Header.Violation.Fingerprint, got.Violation.Fingerprint)
	require.LessOrEqual(t, 4*got.Deliveries, 5*ref.Header.Deliveries, "more than 1.25 times the reference's deliveries")
	require.LessOrEqual(t, 4*len(res.Trace.Events), 5*len(ref.Events), "more than 1.25 times the reference's events")
}
