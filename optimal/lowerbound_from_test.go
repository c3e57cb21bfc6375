package optimal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// TestLowerBoundFindsTheSameReproducer compares searches with the
// system's lower bound and without where a reproducer IS found (the
// comparison in TestLowerBoundChangesNoAnswer finds one only for
// raft-46): searches from the state a few events before the violation of
// each Raft bug's minimized trace, over the deliveries
// and every subsequence of the external events after the cut. Both must
// find the same cheapest suffix, cover the same costs, and the bound
// must cut states. For raft-58b, a two-leader result
// (examples/raft/testdata/raft-58b-two-leaders.trace, the shipped
// raft-58b.min.trace before the gather stage took it to the one-leader
// route) is searched with its two commands set to Cmd 0, as
// shrink-contents left them before it renamed values: with different
// commands the bound cuts no state of this suffix.
func TestLowerBoundFindsTheSameReproducer(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	for _, c := range []struct {
		bug    string
		suffix int // events from the cut to the violation
		want   int // the cheapest suffix: deliveries plus externals
	}{
		{raft.Bug45, 6, 6},
		{raft.Bug46, 6, 6},
		{raft.Bug56, 5, 5},
		{raft.Bug58a, 6, 6},
		{raft.Bug58b, 6, 6},
		{raft.Bug42, 6, 6},
		{raft.Bug66, 6, 6},
	} {
		t.Run(c.bug, func(t *testing.T) {
			path := "../examples/traces/" + c.bug + ".min.trace"
			if c.bug == raft.Bug58b {
				path = "../examples/raft/testdata/raft-58b-two-leaders.trace"
			}
			tr, sys, err := record.ReadFile(path, cat)
			require.NoError(t, err)
			if c.bug == raft.Bug58b {
				for i, e := range tr.Events {
					if cmd, ok := e.Msg.(raft.ClientCommand); ok {
						cmd.Cmd = 0
						tr.Events[i].Msg = cmd
					}
				}
			}
			cut := tr.Header.Violation.Event + 1 - c.suffix
			cfg := optimal.Config{MaxDeliveries: c.suffix, TotalBound: c.suffix, Subsets: true}
			with, err := optimal.SearchFrom(context.Background(), sys, tr, cut, cfg)
			require.NoError(t, err)
			cfg.NoLowerBound = true
			without, err := optimal.SearchFrom(context.Background(), sys, tr, cut, cfg)
			require.NoError(t, err)
			require.NotNil(t, with.Trace)
			require.NotNil(t, without.Trace)
			assert.True(t, with.Exhausted)
			assert.True(t, without.Exhausted)
			assert.Equal(t, c.want, with.Deliveries+with.Externals-cut, "the cheapest suffix")
			assert.Equal(t, without.Deliveries, with.Deliveries)
			assert.Equal(t, without.Externals, with.Externals)
			assert.Equal(t, without.Searched, with.Searched)
			assert.Equal(t, without.Trace.Events, with.Trace.Events, "the same first reproducer")
			assert.True(t, with.LowerBound)
			assert.Positive(t, with.BoundCuts)
			t.Logf("suffix %d: expanded %d with the bound (%d cut), %d without", with.Deliveries+with.Externals-cut, with.Expanded, with.BoundCuts, without.Expanded)
		})
	}
}
