package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComponentOrderTriesNamedMembersLast: the members of a configuration
// that the violation names (fingerprint or detail) are removed last, the others from
// the last to the first, as before.
func TestComponentOrderTriesNamedMembersLast(t *testing.T) {
	sys := raft.System()
	resolved, err := sys.Resolve(record.Options{})
	require.NoError(t, err)
	m := &minimizer{sys: sys, resolved: resolved}
	boot := raft.Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3", "raft-4"}}
	trace := func(fingerprint, detail string) *record.Trace {
		return &record.Trace{Header: record.Header{Violation: &record.Violation{Fingerprint: fingerprint, Detail: detail}}}
	}
	assert.Equal(t, []int{1, 0, 3, 2}, m.componentOrder(trace("ElectionSafety(raft-3,raft-4)", ""), boot))
	assert.Equal(t, []int{2, 0, 3, 1}, m.componentOrder(trace("LeaderCompleteness(raft-2)", "raft-4 committed it"), boot),
		"the detail's names count too")
	assert.Equal(t, []int{3, 2, 1, 0}, m.componentOrder(&record.Trace{}, boot), "no violation: from the last")
}
