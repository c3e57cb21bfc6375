package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// What a member keeps in demi's stable storage (record.Context.Storage),
// the disk of a real deployment. Raft state is stored as protobuf bytes, as
// a write-ahead log would hold it:
//
//   - keyHardState: the HardState (term, vote, commit);
//   - keySnapshot: the last snapshot (metadata and the key-value store);
//   - keyLog: the log entries after the snapshot, one encoded entry each.
//
// Ghost state, kept only for the invariants (a real system has none), is
// read by the invariant through record.View.Storage:
//
//   - keyLed: the terms the member was leader of;
//   - keyApplied: what the member applied at each index (term and data);
//   - keyAppliedData: the same entries' data alone, for Linearizability;
//   - kvapp.KeyOps: the client operations the member served (client.go).
const (
	keyHardState = "raft/hardstate"
	keySnapshot  = "raft/snapshot"
	keyLog       = "raft/log"
	keyLed       = "ghost/led"
	keyApplied   = "ghost/applied"
	// keyAppliedData is index-aligned with keyApplied.
	keyAppliedData = "ghost/applied-data"
)

var deterministic = proto.MarshalOptions{Deterministic: true}

func marshal(m proto.Message) []byte {
	b, err := deterministic.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("etcdraft: marshal %T: %v", m, err))
	}
	return b
}

func unmarshal[T any, P interface {
	*T
	proto.Message
}](b []byte) P {
	m := P(new(T))
	if err := proto.Unmarshal(b, m); err != nil {
		panic(fmt.Sprintf("etcdraft: unmarshal %T: %v", m, err))
	}
	return m
}

func getBytes(st getter, key string) ([]byte, bool) {
	v, ok := st.Get(key)
	if !ok {
		return nil, false
	}
	b, ok := v.([]byte)
	return b, ok
}

func storedLog(st getter) [][]byte {
	v, _ := st.Get(keyLog)
	l, _ := v.([][]byte)
	return l
}

// saveHardState writes the HardState.
func saveHardState(st record.Storage, hs *raftpb.HardState) {
	st.Put(keyHardState, marshal(hs))
}

// saveEntries appends entries to the stored log, replacing the entries at
// the same and later indices (a new leader may overwrite a suffix).
func saveEntries(st record.Storage, ents []*raftpb.Entry) {
	if len(ents) == 0 {
		return
	}
	l := storedLog(st)
	first := ents[0].GetIndex()
	cut := len(l)
	for cut > 0 && unmarshal[raftpb.Entry](l[cut-1]).GetIndex() >= first {
		cut--
	}
	l = l[:cut] // storedLog returned a copy
	for _, e := range ents {
		l = append(l, marshal(e))
	}
	st.Put(keyLog, l)
}

// saveSnapshot writes a snapshot and drops the stored entries it covers.
func saveSnapshot(st record.Storage, snap *raftpb.Snapshot) {
	st.Put(keySnapshot, marshal(snap))
	idx := snap.GetMetadata().GetIndex()
	l := storedLog(st)
	drop := 0
	for drop < len(l) && unmarshal[raftpb.Entry](l[drop]).GetIndex() <= idx {
		drop++
	}
	st.Put(keyLog, l[drop:])
}

// stored is a member's durable raft state, as read back on start.
type stored struct {
	hs   *raftpb.HardState
	snap *raftpb.Snapshot
	ents []*raftpb.Entry
}

// load reads the durable raft state; ok is false on a member's first start.
// Entries that do not follow the snapshot without a gap are not read back
// (a write-ahead log replays up to its first hole). st is the member's
// storage, or a view of it (the lower bound reads what a restart would).
func load(st getter) (s stored, ok bool) {
	hb, ok := getBytes(st, keyHardState)
	if !ok {
		return s, false
	}
	s.hs = unmarshal[raftpb.HardState](hb)
	sb, _ := getBytes(st, keySnapshot)
	s.snap = unmarshal[raftpb.Snapshot](sb)
	next := s.snap.GetMetadata().GetIndex() + 1
	for _, b := range storedLog(st) {
		e := unmarshal[raftpb.Entry](b)
		if e.GetIndex() < next {
			continue
		}
		if e.GetIndex() > next {
			break
		}
		s.ents = append(s.ents, e)
		next++
	}
	return s, true
}

// getter reads stable storage: record.Storage in the member (copies) or
// record.StoredView in the invariant (no copies).
type getter interface {
	Get(key string) (any, bool)
}

// ledTerms returns the terms a member was leader of (ghost state).
func ledTerms(st getter) []uint64 {
	v, _ := st.Get(keyLed)
	t, _ := v.([]uint64)
	return t
}

// appliedData returns the data of the entries appliedLog lists, by index
// ("" where it applied nothing or an empty entry).
func appliedData(st getter) []string {
	v, _ := st.Get(keyAppliedData)
	l, _ := v.([]string)
	return l
}

// appliedLog returns what a member applied, by index (ghost state): at
// position i the entry it applied at index i (its term and data), or ""
// where it applied nothing (indices a snapshot covered).
func appliedLog(st getter) []string {
	v, _ := st.Get(keyApplied)
	l, _ := v.([]string)
	return l
}
