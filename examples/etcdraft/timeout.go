package etcdraft

import (
	"reflect"
	"unsafe"

	"go.etcd.io/raft/v3"
)

// settleTimeout sets the randomized election timeout of rn's raft to
// electionTick, the low end of the range raft draws it from. raft draws
// it from crypto/rand every time it resets a member's election timer
// (each change of role or term). The draw decides nothing here (the
// timeout is never reached, see electionTick), but the value is part of
// the member's state: two runs of one schedule, or two orders of
// deliveries that commute, left the members in states that differ in it
// alone, so the exact searches (demi optimal, minimize's search passes),
// which name a state by the hash of its members' states, could not tell
// that they had met a state before. The member settles it after every
// call into raft (ready), so that its state is a function of its
// history. It runs after every delivery: it writes the field at the
// offsets timeoutFields found once, without reflection.
func settleTimeout(rn *raft.RawNode) {
	if rn == nil {
		return
	}
	if rawRaft.Type == nil || raftTimeout.Type == nil {
		// Another release of raft: fail rather than hash a drawn value.
		panic("etcdraft: raft's randomized election timeout not found")
	}
	r := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(rn), rawRaft.Offset))
	if r != nil {
		*(*int)(unsafe.Add(r, raftTimeout.Offset)) = electionTick
	}
}

// rawRaft is the RawNode's field that points to its raft, raftTimeout the
// raft's randomized election timeout (zero fields where raft has none).
// They describe raft's types and never change.
var rawRaft, raftTimeout = timeoutFields()

func timeoutFields() (reflect.StructField, reflect.StructField) {
	r, ok := reflect.TypeFor[raft.RawNode]().FieldByName("raft")
	if !ok || r.Type.Kind() != reflect.Pointer || r.Type.Elem().Kind() != reflect.Struct {
		return reflect.StructField{}, reflect.StructField{}
	}
	t, ok := r.Type.Elem().FieldByName("randomizedElectionTimeout")
	if !ok || t.Type.Kind() != reflect.Int {
		return r, reflect.StructField{}
	}
	return r, t
}
