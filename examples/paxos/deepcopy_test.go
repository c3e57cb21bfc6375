package paxos_test

import (
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// TestDeepCopy checks Node.DeepCopy against the reflective copy at every
// step of every shipped paxos trace: equal field by field, sharing no
// memory.
func TestDeepCopy(t *testing.T) {
	files, err := filepath.Glob("../traces/paxos-*.trace")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 4)
	checked := 0
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(paxos.System()))
		require.NoError(t, err)
		a, _, err := record.CheckDeepCopies(sys, tr, 1)
		require.NoError(t, err, f)
		checked += a
	}
	require.Greater(t, checked, 450)
}
