package etcdraft_test

import (
	"testing"

	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"

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
	realbugstest.MinimizeWithinTarget(t, etcdraft.System(), "../traces/etcdraft-stale-read-index.trace", referenceTrace)
}
