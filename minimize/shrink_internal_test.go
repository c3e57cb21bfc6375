package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComponentOrderTriesNamedMembersLast: the members of a configuration
// that the violation names (fingerprint or detail) are listed apart, each
// list from the last component to the first.
func TestComponentOrderTriesNamedMembersLast(t *testing.T) {
	sys := raft.System()
	resolved, err := sys.Resolve(record.Options{})
	require.NoError(t, err)
	m := &minimizer{shared: &shared{sys: sys, resolved: resolved}}
	boot := raft.Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3", "raft-4"}}
	trace := func(fingerprint, detail string) *record.Trace {
		return &record.Trace{Header: record.Header{Violation: &record.Violation{Fingerprint: fingerprint, Detail: detail}}}
	}
	order := func(tr *record.Trace) [2][]int {
		unnamed, named := m.componentOrder(tr, boot)
		return [2][]int{unnamed, named}
	}
	assert.Equal(t, [2][]int{{1, 0}, {3, 2}}, order(trace("ElectionSafety(raft-3,raft-4)", "")))
	assert.Equal(t, [2][]int{{2, 0}, {3, 1}}, order(trace("LeaderCompleteness(raft-2)", "raft-4 committed it")),
		"the detail's names count too")
	assert.Equal(t, [2][]int{{3, 2, 1, 0}, nil}, order(&record.Trace{}), "no violation: from the last")
}

// TestShrinkSearchFromTheBestTrace runs shrink-search on a raft-46 result
// (fresh seed 600022, range 600000) that the removal tier leaves at 14
// deliveries (E:6), its two leaders of term 3. Its 3-member configuration
// has no group edit; the search from a cut of the trace itself finds 11
// (E:6), two leaders of term 2, from which the removal tier reaches 10
// (E:6), the bug's best known size (demi minimize on the fresh input).
func TestShrinkSearchFromTheBestTrace(t *testing.T) {
	m := stageMinimizer(t, "testdata/raft-46-600022-late-term.trace", 1)
	m.limit.Store(m.allowance(StageShrinkSearch))
	require.Equal(t, [2]int{14, 6}, [2]int{m.best.Header.Deliveries, m.best.Header.Externals})
	require.True(t, m.searches(context.Background()))
	require.NoError(t, m.shrinkSearch(context.Background()))
	assert.Equal(t, [2]int{11, 6}, [2]int{m.best.Header.Deliveries, m.best.Header.Externals})
	assert.Contains(t, m.best.Header.Violation.Detail, "in term 2")
}
