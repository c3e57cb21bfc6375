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
		sim, err := tr.Setup(sys).NewSim()
		require.NoError(t, err)
		for k, e := range tr.Events {
			if e.Kind == record.Deliver {
				require.NoError(t, sim.Deliver(e.ID))
			} else {
				require.NoError(t, sim.Apply(e))
			}
			for _, m := range sim.Members() {
				if n, ok := sim.View().StateOf(m).Actor.(*paxos.Node); ok {
					require.NoError(t, record.CheckDeepCopy(n), "%s event %d %s", f, k, m)
					checked++
				}
			}
		}
	}
	require.Greater(t, checked, 500)
}
