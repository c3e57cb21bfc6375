package step

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBreakOnState: a watched field stops where it changes, a condition
// where it starts to hold; continue goes on to the next stop.
func TestBreakOnState(t *testing.T) {
	w := walk(t, "../../examples/traces/raft-45.min.trace")
	ctx := context.Background()
	exec := func(line string) string {
		t.Helper()
		c, err := Parse(line)
		require.NoError(t, err)
		require.NoError(t, w.Exec(ctx, c))
		return w.status
	}
	assert.Equal(t, "breakpoint raft-2.votes: stopped at step 12 (raft-2.votes=1)", exec("break raft-2.votes"))
	assert.Equal(t, "breakpoint raft-2.votes: stopped at step 18 (raft-2.votes=2)", exec("continue"))
	assert.Equal(t, "breakpoint raft-2.votes: stopped at step 20 (raft-2.votes=3)", exec("continue"),
		"the duplicate vote: counted again at step 20")
	assert.Equal(t, "breakpoint raft-2.votes: no later step matches", exec("continue"))

	exec("goto 0")
	assert.Equal(t, "breakpoint raft-3.votedFor == raft-2: stopped at step 15 (raft-3.votedFor=raft-2)", exec("break raft-3.votedFor == raft-2"))
	assert.Equal(t, "breakpoint raft-1.role == leader: stopped at step 16 (raft-1.role=leader)", exec("break raft-1.role == leader"))
	assert.Equal(t, "breakpoint raft-1.role != leader: no later step matches", exec("break raft-1.role != leader"))

	for _, bad := range []string{"break raft-9.role == leader", "break raft-2.role ==", "break raft 2 == x"} {
		c, err := Parse(bad)
		require.NoError(t, err)
		assert.Error(t, w.Exec(ctx, c), bad)
	}
}
