package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComponentOrderTriesNamedMembersLast: the members of a configuration
// that the violation's fingerprint names are removed last, the others from
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
	assert.Equal(t, []int{3, 2, 0, 1}, m.componentOrder(trace("LeaderCompleteness(raft-2)", "raft-4 committed it"), boot),
		"only the fingerprint's names count: raft-2 last, raft-4 (named in the detail only) first")
	assert.Equal(t, []int{3, 2, 1, 0}, m.componentOrder(&record.Trace{}, boot), "no violation: from the last")
}
