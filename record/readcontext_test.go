package record_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// countdown is a context that is done from its n-th Err call on.
type countdown struct {
	context.Context
	calls, n int
}

func (c *countdown) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestReadFileContextChecksEvery1024Events: reading a trace checks its
// context once per 1,024 events, and stops at the first check after the
// cancellation: a long trace (seconds to read) does not hold up a signal.
func TestReadFileContextChecksEvery1024Events(t *testing.T) {
	const path = "../examples/traces/raft-46.trace" // 2,333 events
	cat := record.NewCatalog(raft.System())
	whole, _, err := record.ReadFileContext(context.Background(), path, cat)
	require.NoError(t, err)
	require.Equal(t, 2333, len(whole.Events))

	all := &countdown{Context: context.Background(), n: 1 << 30}
	_, _, err = record.ReadFileContext(all, path, cat)
	require.NoError(t, err)
	require.Equal(t, 2, all.calls, "before events 1,024 and 2,048")

	second := &countdown{Context: context.Background(), n: 2}
	_, _, err = record.ReadFileContext(second, path, cat)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, path)
	require.Equal(t, 2, second.calls, "stopped at the second check")
}
