package minimize

import (
	"bytes"
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stageMinimizer returns a minimizer whose best trace is the trace in
// path, set up as Run sets it up, with the default step budget and the
// given workers, for running one stage on it.
func stageMinimizer(t *testing.T, path string, workers int) *minimizer {
	t.Helper()
	tr, sys, err := record.ReadFile(path, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	m := &minimizer{sys: sys, opts: tr.Header.OptionMap(), seed: tr.Header.Seed, target: tr.Header.Violation.Fingerprint,
		cfg: Config{Workers: workers, MaxSchedules: 16, TFBScale: 100, Steps: DefaultSteps}, mode: dpor.TFB,
		fp: fingerprint.For(sys, nil), escalation: 1, best: tr, maxComponents: map[string]int{},
		calls: map[string]int{}, left: map[string]*record.Trace{}, passStats: map[string]*PassStats{}, skip: map[string]bool{}, noStall: true}
	m.resolved, err = sys.Resolve(m.opts)
	require.NoError(t, err)
	for _, e := range tr.Events {
		if sh, ok := e.Msg.(record.Shrinkable); ok && e.Kind == record.Send {
			m.maxComponents[record.TypeName(e.Msg)] = max(m.maxComponents[record.TypeName(e.Msg)], sh.Components())
		}
	}
	require.NoError(t, m.newChecks())
	return m
}

// TestShrinkSearchEscapesTheFourMemberMinimum runs the shrink-search stage
// on the trace the pipeline without it ended on for raft-56 fuzz seed 28
// (22 deliveries, E:8: four members bootstrapped with the same 4-member
// list). Content shrinking alone finds nothing there: with a member
// removed from every list, the old schedule elects a leader early and no
// backtrack of the check recovers. The stage keeps the part of the
// schedule the 3-member cluster still follows, finds the rest by an exact
// search, and the removal stages after it end at 16 deliveries (E:8), the
// shipped trace's size; the result and the steps do not depend on the
// workers.
func TestShrinkSearchEscapesTheFourMemberMinimum(t *testing.T) {
	const path = "testdata/raft-56-local-minimum.trace"
	m := stageMinimizer(t, path, 2)
	require.Equal(t, 22, m.best.Header.Deliveries)
	require.Equal(t, 8, m.best.Header.Externals)

	// Without the stage: shrink-contents keeps the trace as it is.
	m.limit.Store(DefaultSteps)
	require.NoError(t, m.shrinkContents(context.Background()))
	assert.Equal(t, []int{22, 8}, []int{m.best.Header.Deliveries, m.best.Header.Externals}, "shrink-contents alone")

	var traces [][]byte
	var steps []int64
	for _, j := range []int{1, 2} {
		m := stageMinimizer(t, path, j)
		require.True(t, m.shrinkSearches(context.Background()))
		m.limit.Store(m.allowance(StageShrinkSearch))
		require.NoError(t, m.shrinkSearch(context.Background()))
		require.NoError(t, m.thenRemovals(context.Background()))
		assert.Equal(t, []int{16, 8}, []int{m.best.Header.Deliveries, m.best.Header.Externals}, "-j %d", j)
		var buf bytes.Buffer
		require.NoError(t, m.best.Encode(&buf))
		traces = append(traces, buf.Bytes())
		steps = append(steps, m.steps.Load())
		for _, e := range m.best.Events {
			if b, ok := e.Msg.(raft.Bootstrap); ok {
				assert.Len(t, b.Members, 3, "a 3-member configuration")
			}
		}
		assert.False(t, m.shrinkSearches(context.Background()), "no group edit is left: three members is the least of four's majority")
	}
	assert.Equal(t, traces[0], traces[1], "the trace does not depend on the workers")
	assert.Equal(t, steps[0], steps[1], "nor do the steps")
}
