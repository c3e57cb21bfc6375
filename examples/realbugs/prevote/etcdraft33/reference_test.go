package etcdraft33_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/realbugs/prevote/etcdraft33"
)

// referenceTrace is the shipped hand-built reproducer.
const referenceTrace = "../traces/etcdraft33-prevote.ref.trace"

// TestReference checks that the hand-built reproducer ends in the
// Liveness(leader) violation and nowhere before (the builder checks after
// every step), and that the shipped file is what Reference builds, byte
// for byte (UPDATE_REFERENCE=1 rewrites it).
func TestReference(t *testing.T) {
	tr, err := etcdraft33.Reference(context.Background())
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	require.Equal(t, "Liveness(leader)", tr.Header.Violation.Fingerprint)
	require.Equal(t, "no leader acknowledged by a majority within 60 deliveries after the last fault (event 12)", tr.Header.Violation.Detail)
	require.Equal(t, 9+etcdraft33.DefaultLiveness, tr.Header.Deliveries)
	require.Len(t, tr.Externals(), 4)
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	if os.Getenv("UPDATE_REFERENCE") != "" {
		require.NoError(t, tr.WriteFile(referenceTrace))
	}
	shipped, err := os.ReadFile(referenceTrace)
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), shipped)
}
