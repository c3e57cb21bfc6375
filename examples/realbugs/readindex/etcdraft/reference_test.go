package etcdraft_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/realbugs/readindex/etcdraft"
)

// referenceTrace is the shipped hand-built reproducer.
const referenceTrace = "../traces/etcdraft-stale-read-index.ref.trace"

// TestReference checks that the hand-built reproducer ends in the
// Linearizability violation at etcd-1, the stale leader, and nowhere
// before (the builder checks the invariant after every step), and that
// the shipped file is what Reference builds, byte for byte
// (UPDATE_REFERENCE=1 rewrites it).
func TestReference(t *testing.T) {
	tr, err := etcdraft.Reference(context.Background())
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	require.Equal(t, "Linearizability(etcd-1)", tr.Header.Violation.Fingerprint)
	require.Equal(t, 30, tr.Header.Deliveries)
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	if os.Getenv("UPDATE_REFERENCE") != "" {
		require.NoError(t, tr.WriteFile(referenceTrace))
	}
	shipped, err := os.ReadFile(referenceTrace)
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), shipped)
}
