package kvapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

func TestCheckReads(t *testing.T) {
	ms := []record.ActorID{"etcd-1", "etcd-2"}
	put := func(key, value string, inv, resp int, index uint64) Op {
		return Op{Key: key, Value: value, Absent: value == "", Inv: inv, Resp: resp, Index: index}
	}
	get := func(key, value string, inv, resp int) Op {
		return Op{Read: true, Key: key, Value: value, Absent: value == "", Inv: inv, Resp: resp}
	}
	// The log: index 2 sets k to 1, index 3 sets k to 2, index 4 deletes
	// it; etcd-1 applied all of it, etcd-2 index 2 only.
	logs := [][]string{{"", "", "set k 1", "set k 2", "del k"}, {"", "", "set k 1"}}
	// The writes, all through etcd-1: invoked at events 10, 20, 30 and
	// completed at 15, 25, 35.
	writes := []Op{put("k", "1", 10, 15, 2), put("k", "2", 20, 25, 3), put("k", "", 30, 35, 4)}
	for _, tc := range []struct {
		name  string
		reads []Op   // served by etcd-2
		want  string // the violation's detail, "" for none
	}{
		{"no reads", nil, ""},
		{"the initial state before any write", []Op{get("k", "", 5, 6)}, ""},
		{"a read concurrent with the first write sees either", []Op{get("k", "", 12, 13), get("k", "1", 12, 14)}, ""},
		{"the latest completed write", []Op{get("k", "2", 26, 27)}, ""},
		{"a read concurrent with the delete", []Op{get("k", "2", 31, 32)}, ""},
		{"stale: value 1 after the write of 2 completed", []Op{get("k", "1", 26, 27)},
			`etcd-2 answered a read of k (events 26-27) with "1"; a linearizable read returns the value of the write at log index 3, completed before the read began, or a later one before index 4`},
		{"stale: no value after the first write completed", []Op{get("k", "", 16, 17)},
			`etcd-2 answered a read of k (events 16-17) with no value; a linearizable read returns the value of the write at log index 2, completed before the read began, or a later one before index 3`},
		{"from the future: value 2 before its write was invoked", []Op{get("k", "2", 16, 17)},
			`etcd-2 answered a read of k (events 16-17) with "2"; a linearizable read returns the value of the write at log index 2, completed before the read began, or a later one before index 3`},
		{"a value never written", []Op{get("k", "7", 40, 41)},
			`etcd-2 answered a read of k (events 40-41) with "7"; a linearizable read returns the value of the write at log index 4, completed before the read began, or a later one`},
		{"back in time: a read after a read sees an older write", []Op{get("k", "2", 21, 23), get("k", "1", 24, 26)},
			`etcd-2 answered a read of k (events 24-26) with "1" after etcd-2 had answered one (events 21-23) with a later write's "2"`},
		{"another key is not this key's writes", []Op{get("j", "", 40, 41)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := [][]Op{writes, tc.reads}
			v := CheckReads(ms, hs, logs)
			if tc.want == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			assert.Equal(t, "Linearizability(etcd-2)", v.Fingerprint)
			assert.Equal(t, tc.want, v.Detail)
		})
	}
}

// TestCheckReadsDuplicateValues: a write is known by its key and value, so
// a read of a value written twice may linearize on either write.
func TestCheckReadsDuplicateValues(t *testing.T) {
	ms := []record.ActorID{"etcd-1"}
	ops := []Op{
		{Key: "k", Value: "1", Inv: 10, Resp: 15, Index: 2},
		{Key: "k", Value: "2", Inv: 20, Resp: 25, Index: 3},
		{Read: true, Key: "k", Value: "1", Inv: 26, Resp: 40},
	}
	// Value 1 after the write of 2 completed, and no later write of 1: stale.
	v := CheckReads(ms, [][]Op{ops}, [][]string{{"", "", "set k 1", "set k 2"}})
	require.NotNil(t, v)
	assert.Equal(t, "Linearizability(etcd-1)", v.Fingerprint)

	// A second write of 1 at index 4, invoked while the read ran: the read
	// linearizes after it.
	logs := [][]string{{"", "", "set k 1", "set k 2", "set k 1"}}
	again := append(ops, Op{Key: "k", Value: "1", Inv: 30})
	assert.Nil(t, CheckReads(ms, [][]Op{again}, logs))

	// Invoked after the read returned, it could not have been read; but the
	// first write of 1 was invoked before, and the check, which tells writes
	// apart by key and value only, accepts the read (a miss, never a false
	// alarm).
	again[3].Inv = 41
	assert.Nil(t, CheckReads(ms, [][]Op{again}, logs))
}
