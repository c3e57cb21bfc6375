package step

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiffAgainstTheOriginal: after a drop, diff names the first step
// that differs and the state that differs here.
func TestDiffAgainstTheOriginal(t *testing.T) {
	w := walk(t, "../../examples/traces/raft-45.min.trace")
	ctx := context.Background()
	exec := func(line string) error {
		c, err := Parse(line)
		require.NoError(t, err)
		return w.Exec(ctx, c)
	}
	assert.ErrorContains(t, exec("diff"), "make a what-if first")
	require.NoError(t, exec("goto 15"))
	require.NoError(t, exec("drop 19"))
	require.NoError(t, exec("goto 16"))
	require.NoError(t, exec("diff"))
	assert.Equal(t, "diff: first different event at step 16: timer retry fires at raft-2: RetryVotes{Term:1} "+
		"(original: deliver #19 raft-4→raft-1 Vote{t1 granted}); at step 16: raft-1.leader=\"\" (original raft-1), "+
		"raft-1.ledTerms=[] (original [1]), raft-1.role=candidate (original leader), raft-1.voters=[raft-1] (original [raft-1 raft-4]), "+
		"raft-1.votes=1 (original 2)", w.status)
}
