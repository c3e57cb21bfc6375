package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCutSearchLeavesOutTheLateExternal runs cut-search on the result the
// other passes leave for paxos-forget-accepted fuzz seed 3800008: 18
// deliveries (E:6), whose one external event after the leading ones is
// the start of acceptor p3. No removal drops it on this route, and
// shrink-search, which keeps every external event of a prefix, finds
// nothing; cut-search's search of the deliveries after the leading events
// reaches the violation without p3, at 18 (E:5), the bug's best known size.
func TestCutSearchLeavesOutTheLateExternal(t *testing.T) {
	m := stageMinimizerOf(t, "testdata/paxos-forget-accepted-3800008-late-start.trace", paxos.System(), 1)
	ctx := context.Background()
	fp := m.best.Header.Violation.Fingerprint
	require.Equal(t, [2]int{18, 6}, [2]int{m.best.Header.Deliveries, m.best.Header.Externals})
	require.True(t, m.cutSearches(ctx))
	m.limit.Store(m.allowance(StageShrinkSearch))
	require.NoError(t, m.shrinkSearch(ctx))
	require.Equal(t, [2]int{18, 6}, [2]int{m.best.Header.Deliveries, m.best.Header.Externals}, "shrink-search alone leaves it")
	m.limit.Store(m.steps.Load() + m.allowance(StageCutSearch))
	require.NoError(t, m.cutSearch(ctx))
	assert.Equal(t, [2]int{18, 5}, [2]int{m.best.Header.Deliveries, m.best.Header.Externals})
	assert.Equal(t, fp, m.best.Header.Violation.Fingerprint)
	assert.False(t, m.cutSearches(ctx), "no external event after the leading ones is left")
}

// TestCutSearchLeavesTracesWithLaterExternalsAlone: the pass does not run
// where the best trace keeps two or more external events after its leading
// ones, as the shipped etcdraft-hardstate-before-entries result does (the
// start of etcd-3 and its restart, which the violation needs): there the
// search would leave them all out and, measured on 250 development traces,
// never paid while taking up to half of a run's steps (docs/minimization.md).
func TestCutSearchLeavesTracesWithLaterExternalsAlone(t *testing.T) {
	m := stageMinimizerOf(t, "../examples/traces/etcdraft-hardstate-before-entries.min.trace", etcdraft.System(), 1)
	ctx := context.Background()
	require.True(t, m.searches(ctx), "the trace forks: only the trigger keeps the pass off")
	assert.False(t, m.cutSearches(ctx))
}
