package etcdraft

import (
	"fmt"
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
	for _, l := range []opLog{nil, {}, {{Key: "k1", Value: "5", Inv: 3, Resp: 9, Index: 4}, {Read: true, Key: "k2", Absent: true, Inv: 10, Resp: 11}}} {
		require.NoError(t, record.CheckDeepCopy(l))
	}
	st := record.Storage{}
	st.Put(keyOps, opLog{{Key: "k1", Value: "5"}})
	ops := history(st)
	ops[0].Value = "6"
	assert.Equal(t, "5", history(st)[0].Value, "a read of the history is a copy")
}
