package raft_test

import (
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// TestDeepCopy checks Node.DeepCopy and the stored state's DeepCopy
// against the reflective copy at every step of every shipped raft trace:
// equal field by field, sharing no memory.
func TestDeepCopy(t *testing.T) {
	files, err := filepath.Glob("../traces/raft-*.trace")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 14)
	checked := 0
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(raft.System()))
		require.NoError(t, err)
		sim, err := tr.Setup(sys).NewSim()
		require.NoError(t, err)
		for k, e := range tr.Events {
			if e.Kind == record.Deliver {
				require.NoError(t, sim.Deliver(e.ID))
			} else {
				require.NoError(t, sim.Apply(e))
			}
			if k%7 != 0 && k != len(tr.Events)-1 {
				continue
			}
			for _, m := range sim.Members() {
				st := sim.View().StateOf(m)
				if n, ok := st.Actor.(*raft.Node); ok {
					require.NoError(t, record.CheckDeepCopy(n), "%s event %d %s", f, k, m)
					checked++
				}
				if v, ok := sim.View().Storage(m).Get("raft"); ok {
					c, ok := v.(record.DeepCopier)
					require.True(t, ok, "the stored value %T is a DeepCopier", v)
					require.NoError(t, record.CheckDeepCopy(c), "%s event %d %s storage", f, k, m)
				}
			}
		}
	}
	require.Greater(t, checked, 1000)
}
