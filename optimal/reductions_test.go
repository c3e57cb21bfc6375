package optimal_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReductionsChangeNoAnswer runs searches with every reduction and with
// each one off (and all off): the answers (the cost found, or none; the
// cost fully searched; whether the search finished) must be the same, and
// the reductions must save steps (dominance only where a delivery can
// change nothing: raft-66 here). A reduction that lost a reproducer or
// proved a bound it should not would show here.
func TestReductionsChangeNoAnswer(t *testing.T) {
	raftCat := record.NewCatalog(raft.System())
	paxosCat := record.NewCatalog(paxos.System())
	for _, c := range []struct {
		file string
		cat  *record.Catalog
		cfg  optimal.Config
		want int // deliveries plus externals found (Subsets) or deliveries; -1: none
	}{
		{"raft-46.min.trace", raftCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 10}, 10},
		{"raft-46.min.trace", raftCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 10, Subsets: true, TotalBound: 12}, -1},
		{"raft-66.min.trace", raftCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 13, Subsets: true, TotalBound: 12}, -1},
		{"paxos-forget-accepted.min.trace", paxosCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 18, Subsets: true, TotalBound: 18}, -1},
	} {
		t.Run(fmt.Sprintf("%s/subsets=%v", c.file, c.cfg.Subsets), func(t *testing.T) {
			tr, sys, err := record.ReadFile("../examples/traces/"+c.file, c.cat)
			require.NoError(t, err)
			all, err := optimal.Search(context.Background(), sys, tr, c.cfg)
			require.NoError(t, err)
			assert.True(t, all.Exhausted)
			assert.False(t, all.Plain)
			assert.Equal(t, c.want, foundCost(t, sys, all, c.cfg.Subsets))
			for _, off := range [][]string{{"commutation"}, {"dominance"}, {"memo"}, {"commutation", "dominance", "memo"}} {
				res, err := optimal.Search(context.Background(), sys, tr, optimal.Without(c.cfg, off...))
				require.NoError(t, err)
				assert.Equal(t, all.Deliveries, res.Deliveries, "without %v", off)
				assert.Equal(t, all.Externals, res.Externals, "without %v", off)
				assert.Equal(t, all.Searched, res.Searched, "without %v", off)
				assert.Equal(t, all.Exhausted, res.Exhausted, "without %v", off)
				assert.LessOrEqual(t, all.Steps, res.Steps, "without %v: the reduction saves steps", off)
				if c.file == "raft-66.min.trace" && off[0] == "dominance" {
					assert.Less(t, all.States, res.States, "raft-66 has idle deliveries")
				}
				if len(off) > 1 {
					assert.Less(t, all.Steps*3/2, res.Steps, "the reductions save a third of the steps")
				}
				t.Logf("without %v: %d steps, %d states (all reductions: %d steps, %d states)", off, res.Steps, res.States, all.Steps, all.States)
			}
		})
	}
}

// TestObservedNetworkTurnsReductionsOff: an invariant that reads the
// network (View.NumInFlight) makes dominance unsound, so the search starts
// again without its reductions (Result.Plain) and gives the same answer.
func TestObservedNetworkTurnsReductionsOff(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-46.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	cfg := optimal.Config{NoLowerBound: true, MaxDeliveries: 9}
	normal, err := optimal.Search(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	assert.False(t, normal.Plain)
	reading := *sys
	inv := sys.Invariant
	reading.Invariant = func(v record.View) *record.Violation {
		_ = v.NumInFlight()
		return inv(v)
	}
	var bounds []int
	cfg.Progress = func(p optimal.Progress) { bounds = append(bounds, p.Bound) }
	plain, err := optimal.Search(context.Background(), &reading, tr, cfg)
	require.NoError(t, err)
	assert.True(t, plain.Plain)
	assert.Nil(t, plain.Trace)
	assert.Equal(t, normal.Searched, plain.Searched)
	assert.True(t, plain.Exhausted)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, bounds, "each bound reported once")
}

// TestWorkersChangeNothing: a parallel search proves the same bounds and
// returns the same reproducer, event for event, as one walker.
func TestWorkersChangeNothing(t *testing.T) {
	raftCat := record.NewCatalog(raft.System())
	paxosCat := record.NewCatalog(paxos.System())
	for _, c := range []struct {
		file string
		cat  *record.Catalog
		cfg  optimal.Config
	}{
		{"raft-46.min.trace", raftCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 10}},
		{"raft-66.min.trace", raftCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 13, Subsets: true, TotalBound: 13}},
		{"paxos-accept-below-promise.min.trace", paxosCat, optimal.Config{NoLowerBound: true, MaxDeliveries: 18}},
	} {
		t.Run(c.file, func(t *testing.T) {
			tr, sys, err := record.ReadFile("../examples/traces/"+c.file, c.cat)
			require.NoError(t, err)
			one, err := optimal.Search(context.Background(), sys, tr, c.cfg)
			require.NoError(t, err)
			c.cfg.Workers = 2
			two, err := optimal.Search(context.Background(), sys, tr, c.cfg)
			require.NoError(t, err)
			assert.Equal(t, one.Searched, two.Searched)
			assert.Equal(t, one.Exhausted, two.Exhausted)
			require.Equal(t, one.Trace != nil, two.Trace != nil)
			if one.Trace != nil {
				assert.Equal(t, one.Trace.Events, two.Trace.Events)
			}
			t.Logf("%d states, %d expanded with one walker; %d, %d with two", one.States, one.Expanded, two.States, two.Expanded)
		})
	}
}
