package etcdraft_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// TestRunsFork: the runs of every shipped minimized and reference trace
// fork soundly (optimal.Forks runs each event in a fork of the run before
// it, so every member that takes a step is copied by Member.DeepCopy).
func TestRunsFork(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(tracesDir, "etcdraft-*.*.trace"))
	require.NoError(t, err)
	require.Len(t, files, 10)
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(etcdraft.System()))
		require.NoError(t, err)
		require.NoError(t, optimal.Forks(context.Background(), sys, tr), f)
	}
}

// TestOptimalSearchesEtcdRaft: demi optimal's search runs on etcd raft
// (it used to refuse: a member's RawNode holds a method value) and proves
// the shipped apply-before-commit trace's 6 deliveries optimal over its
// external events.
func TestOptimalSearchesEtcdRaft(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, "etcdraft-apply-before-commit.min.trace"), record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	require.Equal(t, 6, tr.Header.Deliveries)
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{MaxDeliveries: 5})
	require.NoError(t, err)
	assert.Nil(t, res.Trace)
	assert.True(t, res.Exhausted)
	assert.Equal(t, 5, res.Searched)
	assert.Greater(t, res.States, 1000)
}
