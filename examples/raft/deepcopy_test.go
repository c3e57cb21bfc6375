package raft_test

import (
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// TestDeepCopy checks Node.DeepCopy and the stored state's DeepCopy
// against the reflective copy after every seventh event of every shipped
// raft trace: equal field by field, sharing no memory.
func TestDeepCopy(t *testing.T) {
	files, err := filepath.Glob("../traces/raft-*.trace")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 14)
	actors, stored := 0, 0
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(raft.System()))
		require.NoError(t, err)
		a, s, err := record.CheckDeepCopies(sys, tr, 7)
		require.NoError(t, err, f)
		actors += a
		stored += s
	}
	require.Greater(t, actors, 1000)
	// The members' stored states are DeepCopiers too.
	require.Greater(t, stored, 1000)
}
