package etcdraft_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
)

// TestDeepCopy checks Member.DeepCopy against the reflective copy it
// stands in for (record.CheckDeepCopy: equal, no memory shared, its tick
// method value bound to the copy) on every shipped trace: the fuzzed
// (every 10th event), reference and minimized traces (every event) of all
// five bugs, which take members through every role, crashes, snapshots
// and the writes a buggy member defers.
func TestDeepCopy(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(tracesDir, "etcdraft-*.trace"))
	require.NoError(t, err)
	require.Len(t, files, 15)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, sys, err := record.ReadFile(f, record.NewCatalog(etcdraft.System()))
			require.NoError(t, err)
			every := 1
			if !strings.HasSuffix(f, ".min.trace") && !strings.HasSuffix(f, ".reference.trace") {
				every = 10
			}
			actors, _, err := record.CheckDeepCopies(sys, tr, every)
			require.NoError(t, err)
			assert.Greater(t, actors, len(tr.Events)/every)
		})
	}
}

// BenchmarkDeepCopy copies a member halfway through a shipped fuzz trace
// (a log of a few hundred entries), as a forked run's first step on it
// does.
func BenchmarkDeepCopy(b *testing.B) {
	tr, sys := read(b, "etcdraft-leader-local-read.trace")
	sim, err := tr.Setup(sys).NewSim()
	require.NoError(b, err)
	for _, e := range tr.Events[:len(tr.Events)/2] {
		if e.Kind == record.Deliver {
			err = sim.Deliver(e.ID)
		} else {
			err = sim.Apply(e)
		}
		require.NoError(b, err)
	}
	m := sim.View().StateOf(sim.Members()[0]).Actor.(record.DeepCopier)
	b.ReportAllocs()
	for b.Loop() {
		m.DeepCopy()
	}
}
