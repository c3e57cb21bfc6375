package kvapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// TestOpLogDeepCopy checks that an OpLog copies deeply, and that a read of a
// stored history is a copy.
func TestOpLogDeepCopy(t *testing.T) {
	for _, l := range []OpLog{{}, {Ops: []Op{}}, {Ops: []Op{{Key: "k1", Value: "5", Inv: 3, Resp: 9, Index: 4},
		{Read: true, Key: "k2", Absent: true, Inv: 10, Resp: 11}}, Reads: 1}} {
		require.NoError(t, record.CheckDeepCopy(l))
	}
	st := record.Storage{}
	st.Put(KeyOps, OpLog{Ops: []Op{{Key: "k1", Value: "5"}}})
	ops := History(st)
	ops[0].Value = "6"
	assert.Equal(t, "5", History(st)[0].Value, "a read of the history is a copy")
}
