package optimal_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLowerBoundChangesNoAnswer runs searches with the system's lower
// bound and without it (Config.NoLowerBound): the answers (the cost and
// the schedule found, or none; the cost fully searched; whether the
// search finished) must be the same, and where the system has a bound
// (raft, paxos, etcdraft) it must cut states and save expansions. A bound that is not
// admissible would lose a reproducer or prove a bound it should not.
func TestLowerBoundChangesNoAnswer(t *testing.T) {
	raftCat := record.NewCatalog(raft.System())
	paxosCat := record.NewCatalog(paxos.System())
	etcdCat := record.NewCatalog(etcdraft.System())
	for _, c := range []struct {
		file string
		cat  *record.Catalog
		cfg  optimal.Config
		want int // deliveries plus externals found (Subsets) or deliveries; -1: none
	}{
		{"raft-46.min.trace", raftCat, optimal.Config{MaxDeliveries: 10}, 10},
		{"raft-46.min.trace", raftCat, optimal.Config{MaxDeliveries: 10, Subsets: true, TotalBound: 16}, 16},
		{"raft-45.min.trace", raftCat, optimal.Config{MaxDeliveries: 13, Subsets: true, TotalBound: 13}, -1},
		{"raft-66.min.trace", raftCat, optimal.Config{MaxDeliveries: 13, Subsets: true, TotalBound: 14}, -1},
		{"raft-42.min.trace", raftCat, optimal.Config{MaxDeliveries: 15, Subsets: true, TotalBound: 14}, -1},
		{"paxos-forget-accepted.min.trace", paxosCat, optimal.Config{MaxDeliveries: 18, Subsets: true, TotalBound: 18}, -1},
		// The proof that the shipped reproducer, 18 (E:5) = 23, is optimal.
		{"paxos-forget-accepted.min.trace", paxosCat, optimal.Config{Subsets: true, TotalBound: 22}, -1},
		{"etcdraft-leader-local-read.min.trace", etcdCat, optimal.Config{Subsets: true, TotalBound: 10}, -1},
		// raft's panic in loadState: the election, the quorum's ack and the
		// App still to come (restartBound).
		{"etcdraft-hardstate-before-entries.min.trace", etcdCat, optimal.Config{Subsets: true, TotalBound: 11}, -1},
		{"etcdraft-hardstate-before-entries.reference.trace", etcdCat, optimal.Config{Subsets: true, TotalBound: 11}, -1},
		{"etcdraft-skip-snapshot-persist.min.trace", etcdCat, optimal.Config{Subsets: true, TotalBound: 9}, -1},
	} {
		t.Run(fmt.Sprintf("%s/subsets=%v/total=%d", c.file, c.cfg.Subsets, c.cfg.TotalBound), func(t *testing.T) {
			tr, sys, err := record.ReadFile("../examples/traces/"+c.file, c.cat)
			require.NoError(t, err)
			c.cfg.Workers = 2
			with, err := optimal.Search(context.Background(), sys, tr, c.cfg)
			require.NoError(t, err)
			off := c.cfg
			off.NoLowerBound = true
			without, err := optimal.Search(context.Background(), sys, tr, off)
			require.NoError(t, err)
			assert.True(t, with.Exhausted)
			assert.True(t, without.Exhausted)
			assert.Equal(t, c.want, foundCost(t, sys, with, c.cfg.Subsets))
			assert.Equal(t, without.Deliveries, with.Deliveries)
			assert.Equal(t, without.Externals, with.Externals)
			assert.Equal(t, without.Searched, with.Searched)
			require.Equal(t, without.Trace != nil, with.Trace != nil)
			if with.Trace != nil {
				assert.Equal(t, without.Trace.Events, with.Trace.Events, "the same first reproducer")
			}
			assert.False(t, without.LowerBound)
			assert.Zero(t, without.BoundCuts)
			if sys.LowerBound == nil {
				assert.False(t, with.LowerBound)
				assert.Equal(t, without.Expanded, with.Expanded)
				return
			}
			assert.True(t, with.LowerBound)
			assert.Positive(t, with.BoundCuts)
			assert.Less(t, with.Expanded, without.Expanded, "the bound saves expansions")
			t.Logf("expanded %d with the bound (%d cut), %d without", with.Expanded, with.BoundCuts, without.Expanded)
		})
	}
}
