package etcdraft

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
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

func TestOpLogDeepCopy(t *testing.T) {
	for _, l := range []opLog{{}, {ops: []clientOp{}}, {ops: []clientOp{{Key: "k1", Value: "5", Inv: 3, Resp: 9, Index: 4},
		{Read: true, Key: "k2", Absent: true, Inv: 10, Resp: 11}}, reads: 1}} {
		require.NoError(t, record.CheckDeepCopy(l))
	}
	st := record.Storage{}
	st.Put(keyOps, opLog{ops: []clientOp{{Key: "k1", Value: "5"}}})
	ops := history(st)
	ops[0].Value = "6"
	assert.Equal(t, "5", history(st)[0].Value, "a read of the history is a copy")
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
