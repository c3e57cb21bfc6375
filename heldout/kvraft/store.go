package kvraft

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// KV is the replicated state machine: a map from keys to values.
type KV map[string]string

// Command encodes a client write as an entry's data: "put KEY VALUE" or
// "append KEY VALUE".
func Command(op, key, value string) []byte { return []byte(op + " " + key + " " + value) }

// Apply applies one entry's data to the map. Empty data (the entry a new
// leader appends) and data it cannot read do nothing.
func (kv KV) Apply(data []byte) {
	f := strings.SplitN(string(data), " ", 3)
	if len(f) != 3 {
		return
	}
	switch f[0] {
	case "put":
		kv[f[1]] = f[2]
	case "append":
		kv[f[1]] += f[2]
	}
}

// Digest is a canonical rendering of the map ("a=1 b=xy"), the same for
// equal maps.
func (kv KV) Digest() string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(kv)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + kv[k])
	}
	return b.String()
}

// AppState is the state machine as the member keeps it on disk: the map
// and the index of the last entry applied to it, written together after
// every Ready that applied something (as etcd keeps its consistent index
// in the same transaction as the data). On a restart the member reads it
// back and tells raft (Config.Applied) where it stands, so that raft hands
// it only the committed entries after that index.
type AppState struct {
	KV      KV
	Applied uint64
}

// What a member keeps in stable storage. Raft's state is stored as
// protobuf bytes, as a write-ahead log holds it.
const (
	keyHardState = "raft/hardstate" // []byte: HardState
	keySnapshot  = "raft/snapshot"  // []byte: the last snapshot
	keyLog       = "raft/log"       // [][]byte: the entries after it
	keyApp       = "app/state"      // AppState
	// keyDigests is ghost state for the invariant (a real system has
	// none): []string, at index i the digest of the member's map right
	// after it first applied entry i ("" where it applied nothing).
	keyDigests = "ghost/digests"
)

func marshal(m proto.Message) []byte {
	b, err := wireOpts.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("kvraft: marshal %T: %v", m, err))
	}
	return b
}

func unmarshal[T any, P interface {
	*T
	proto.Message
}](b []byte) P {
	m := P(new(T))
	if err := proto.Unmarshal(b, m); err != nil {
		panic(fmt.Sprintf("kvraft: unmarshal %T: %v", m, err))
	}
	return m
}

type getter interface {
	Get(key string) (any, bool)
}

func getBytes(st getter, key string) []byte {
	v, _ := st.Get(key)
	b, _ := v.([]byte)
	return b
}

func storedLog(st getter) [][]byte {
	v, _ := st.Get(keyLog)
	l, _ := v.([][]byte)
	return l
}

// saveEntries writes entries to the stored log, replacing those at the
// same and later indices (a new leader may overwrite a suffix).
func saveEntries(st record.Storage, ents []*raftpb.Entry) {
	if len(ents) == 0 {
		return
	}
	l := storedLog(st) // a copy
	first := ents[0].GetIndex()
	cut := len(l)
	for cut > 0 && unmarshal[raftpb.Entry](l[cut-1]).GetIndex() >= first {
		cut--
	}
	l = l[:cut]
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

// durable is raft's state as read back on start.
type durable struct {
	hs   *raftpb.HardState
	snap *raftpb.Snapshot
	ents []*raftpb.Entry
}

// load reads raft's durable state; ok is false on the first start.
func load(st getter) (d durable, ok bool) {
	hb := getBytes(st, keyHardState)
	if hb == nil {
		return d, false
	}
	d.hs = unmarshal[raftpb.HardState](hb)
	d.snap = unmarshal[raftpb.Snapshot](getBytes(st, keySnapshot))
	for _, b := range storedLog(st) {
		d.ents = append(d.ents, unmarshal[raftpb.Entry](b))
	}
	return d, true
}

func loadApp(st getter) AppState {
	v, _ := st.Get(keyApp)
	a, _ := v.(AppState)
	if a.KV == nil {
		a.KV = KV{}
	}
	return a
}

// Digests returns the ghost record of what a member's map was after each
// index it applied (stable storage or a record.StoredView).
func Digests(st getter) []string {
	v, _ := st.Get(keyDigests)
	d, _ := v.([]string)
	return d
}
