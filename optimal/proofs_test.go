package optimal_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProofsAnswerCoveredSearches searches the shipped paxos-forget-accepted result, 18 deliveries (E:5), for
// a cheaper schedule over the subsequences of its external events: there is none, and the exhausted search is
// remembered. The same search again, and one of the trace without its last external event, are answered from
// that proof: Exhausted, the first search's steps, nothing walked (no second proof).
func TestProofsAnswerCoveredSearches(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", "paxos-forget-accepted.min.trace"), record.NewCatalog(paxos.System()))
	require.NoError(t, err)
	cost := tr.Header.Deliveries + tr.Header.Externals
	require.Equal(t, 23, cost)
	var proofs optimal.Proofs
	cfg := optimal.Config{Subsets: true, TotalBound: cost - 1, Workers: 1, Proofs: &proofs}
	first, err := optimal.Search(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	require.True(t, first.Exhausted)
	require.Nil(t, first.Trace, "the shipped result is at its optimum")
	require.Positive(t, first.Steps)
	require.Equal(t, 1, proofs.Len())

	last := len(tr.Events) - 1
	for !tr.Events[last].Kind.IsExternal() {
		last--
	}
	fewer := *tr
	fewer.Events = slices.Delete(slices.Clone(tr.Events), last, last+1)
	for _, c := range []*record.Trace{tr, &fewer} {
		res, err := optimal.Search(context.Background(), sys, c, cfg)
		require.NoError(t, err)
		assert.True(t, res.Exhausted)
		assert.Nil(t, res.Trace)
		assert.Equal(t, first.Steps, res.Steps, "the answer counts the search it stands for")
	}
	assert.Equal(t, 1, proofs.Len(), "no second search")

	// A higher bound is not covered: that search walks, and finds a schedule of the trace's own cost.
	cfg.TotalBound = cost
	res, err := optimal.Search(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	require.NotNil(t, res.Trace)
	assert.Equal(t, cost, res.Deliveries+res.Externals)
}

// TestProofsCover: after the exhausted search of the shipped paxos-forget-accepted result below its own cost,
// the proofs cover that trace and one with an external event fewer at that bound; not a higher bound, a trace
// with an external event more, the same trace of another seed, nor anything before the search ran.
func TestProofsCover(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", "paxos-forget-accepted.min.trace"), record.NewCatalog(paxos.System()))
	require.NoError(t, err)
	cost := tr.Header.Deliveries + tr.Header.Externals
	var proofs optimal.Proofs
	assert.False(t, proofs.Covers(tr, cost-1), "nothing proved yet")
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{Subsets: true, TotalBound: cost - 1, Workers: 1, Proofs: &proofs})
	require.NoError(t, err)
	require.True(t, res.Exhausted)
	require.Nil(t, res.Trace)

	assert.True(t, proofs.Covers(tr, cost-1), "the trace is optimal over its external events")
	assert.False(t, proofs.Covers(tr, cost), "a bound the search did not reach")
	first := slices.IndexFunc(tr.Events, func(e record.Event) bool { return e.Kind.IsExternal() })
	fewer := *tr
	fewer.Events = slices.Delete(slices.Clone(tr.Events), first, first+1)
	assert.True(t, proofs.Covers(&fewer, cost-1), "a subsequence of the searched external events")
	more := *tr
	more.Events = slices.Insert(slices.Clone(tr.Events), first, tr.Events[first])
	assert.False(t, proofs.Covers(&more, cost-1), "an external event the search did not have")
	other := *tr
	other.Header.Seed++
	assert.False(t, proofs.Covers(&other, cost-1), "another setup")
}
