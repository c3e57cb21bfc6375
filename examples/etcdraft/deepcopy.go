package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// DeepCopy copies the member for a forked run (record.DeepCopier), which
// minimize's forked checks and demi optimal's search make. A copy field by
// field would not do on its own: the RawNode's raft keeps its tick
// function as a method value bound to itself (tickElection or
// tickHeartbeat, by role), so the copy's ticks would tick the original.
// record.CopyOnto copies the whole state and binds that method value to
// the copy's raft instead (it fails, here and in TestDeepCopy, on a
// release of raft with other functions in its state, rather than fork
// wrongly). Pending writes are data (pending), not closures, for the same
// reason. The protocol buffer messages it holds most of (its log's
// entries, hard and configuration states, its snapshot) are cloned by cloneProto rather
// than by proto.Clone (see cloneMessage).
func (n *Member) DeepCopy() any {
	c := &Member{}
	if err := record.CopyOntoCloning(c, n, cloneProto); err != nil {
		panic(fmt.Sprintf("etcdraft: member %s cannot be copied: %v", n.id, err))
	}
	return c
}

var _ record.DeepCopier = (*Member)(nil)

// cloneProto clones the messages of a member's state that it copies on
// every fork (entries, hard and configuration states, snapshots) as proto.Clone
// would, and leaves the others to proto.Clone (nil).
func cloneProto(m proto.Message) proto.Message {
	switch x := m.(type) {
	case *raftpb.Entry:
		return cloneEntry(x)
	case *raftpb.HardState:
		return cloneHardState(x)
	case *raftpb.ConfState:
		return cloneConfState(x)
	case *raftpb.Message:
		return cloneMessage(x)
	case *raftpb.Snapshot:
		return cloneSnapshot(x)
	case *raftpb.SnapshotMetadata:
		return cloneSnapshotMetadata(x)
	}
	return nil
}
