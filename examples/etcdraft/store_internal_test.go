package etcdraft

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppliedEntry checks the applied log's entry strings against the
// fmt format they were first written with (StateMachineSafety's details
// quote them).
func TestAppliedEntry(t *testing.T) {
	n := 0
	for _, m := range shippedMessages(t) {
		for _, e := range m.Entries {
			require.Equal(t, fmt.Sprintf("t%d %q", e.GetTerm(), e.GetData()), appliedEntry(e))
			n++
		}
	}
	assert.Greater(t, n, 100)
}

// TestFirstShared checks the merge of two ascending lists of terms against
// the search it stands in for, on every pair of small lists.
func TestFirstShared(t *testing.T) {
	lists := [][]uint64{nil, {1}, {2}, {1, 2}, {2, 3}, {1, 3, 5}, {3, 1}, {2, 5, 4}, {4, 5}, {5, 1, 3}}
	slow := func(a, b []uint64) (uint64, bool) {
		for _, t := range b {
			if slices.Contains(a, t) {
				return t, true
			}
		}
		return 0, false
	}
	shared := 0
	for _, a := range lists {
		for _, b := range lists {
			wt, wok := slow(a, b)
			gt, gok := firstShared(a, ascending(a), b)
			require.Equal(t, wok, gok, "%v %v", a, b)
			require.Equal(t, wt, gt, "%v %v", a, b)
			if wok {
				shared++
			}
		}
	}
	assert.Equal(t, 57, shared, "pairs of lists that share a term")
}
