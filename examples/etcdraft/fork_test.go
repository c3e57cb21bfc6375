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

// TestOptimalRefusesMembersItCannotFork: a member holds etcd raft's
// RawNode, whose raft keeps method values bound to itself (its tick and
// step functions), so a field-by-field copy of a member would tick the
// original. demi optimal, which forks runs, says so instead of searching
// with forks that change each other (it used to call such a trace
// optimal).
func TestOptimalRefusesMembersItCannotFork(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, "etcdraft-apply-before-commit.min.trace"), record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	_, err = optimal.Search(context.Background(), sys, tr, optimal.Config{MaxDeliveries: 5})
	require.Error(t, err)
	assert.Equal(t, "optimal: actor etcd-1 (*etcdraft.Member) holds a func() value, which a copy of it would share with the original, so its runs cannot be forked; implement record.DeepCopier for it", err.Error())
}
