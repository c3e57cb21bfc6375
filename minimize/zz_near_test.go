package minimize

import (
	"context"
	"os"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

func TestZZNear(t *testing.T) {
	f := os.Getenv("ZZ_TRACE")
	if f == "" {
		t.Skip()
	}
	tr, sys, err := record.ReadFile(f, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	in, _, err := record.ReadFile("/tmp/unseen/a58-1.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	m, err := newStageMinimizer(sys, in, tr, in.Header.OptionMap(), 2)
	require.NoError(t, err)
	m.limit.Store(m.cfg.Steps / nearShare)
	require.NoError(t, m.near(context.Background()))
	best := m.snapshotBest()
	t.Logf("near: best %d (E:%d) steps %d", best.Header.Deliveries, best.Header.Externals, m.steps.Load())
	m.limit.Store(m.steps.Load() + m.cfg.Steps/retargetShare)
	m.reordered = best
	require.NoError(t, m.retarget(context.Background()))
	best = m.snapshotBest()
	t.Logf("retarget: best %d (E:%d) steps %d", best.Header.Deliveries, best.Header.Externals, m.steps.Load())
	require.NoError(t, best.WriteFile("/tmp/r58a/near.trace"))
}
