package etcdraft

import (
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/record"
)

// pending is a stable-storage write, or a send, that a member does later
// (Member.later): what it does, as data, so that a copy of the member
// (DeepCopy) does it to the copy.
type pending struct {
	kind pendingKind
	snap *raftpb.Snapshot // writeReady, writeSnapshot
	ents []*raftpb.Entry  // writeReady, writeEntries
	hs   *raftpb.HardState
	msgs []*raftpb.Message // sendMessages
}

// pendingKind says what a pending write does.
type pendingKind uint8

const (
	writeReady    pendingKind = iota // persist a Ready's snapshot, entries and HardState
	writeEntries                     // save entries
	writeSnapshot                    // save a snapshot
	sendMessages                     // send raft's messages (after the writes before them)
)

// persistReady is the write of rd's snapshot, entries and HardState.
func persistReady(rd raft.Ready) pending {
	return pending{kind: writeReady, snap: rd.Snapshot, ents: rd.Entries, hs: rd.HardState}
}

// do does w now.
func (n *Member) do(ctx *record.Context, w pending) {
	switch w.kind {
	case writeReady:
		n.persist(ctx.Storage(), w)
	case writeEntries:
		saveEntries(ctx.Storage(), w.ents)
	case writeSnapshot:
		saveSnapshot(ctx.Storage(), w.snap)
	case sendMessages:
		n.send(ctx, w.msgs)
	}
}
