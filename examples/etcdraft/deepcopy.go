package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// DeepCopy copies the member for a forked run (record.DeepCopier), which
// minimize's forked checks and demi optimal's search make. A copy field by
// field would not do: the RawNode's raft keeps its tick function as a
// method value bound to itself (tickElection or tickHeartbeat, by role),
// so the copy's ticks would tick the original. Instead the copy starts as
// a donor: a RawNode that raft's own API (NewRawNode, Campaign) brought
// to the original's role, whose method value is bound to the donor, and
// the original's whole state is copied onto it (record.CopyOnto), every
// field but the functions, which must run the same code as the
// original's (CopyOnto checks it: a release of raft with other functions
// in its state fails here, and in TestDeepCopy, rather than fork wrongly).
// Pending writes are data (pending), not closures, for the same reason.
func (n *Member) DeepCopy() any {
	c := &Member{}
	if n.rn != nil {
		c.rn = donor(n.rn.BasicStatus().RaftState)
	}
	if err := record.CopyOnto(c, n); err != nil {
		panic(fmt.Sprintf("etcdraft: member %s cannot be copied: %v", n.id, err))
	}
	return c
}

var _ record.DeepCopier = (*Member)(nil)

// donor returns a new RawNode in a role whose functions are role's: a
// follower (tickElection, stepFollower), a candidate, which serves for a
// pre-candidate too (tickElection, stepCandidate), or a leader
// (tickHeartbeat, stepLeader).
func donor(role raft.StateType) *raft.RawNode {
	voters := []uint64{1, 2} // a candidate waits for the vote of 2
	if role == raft.StateLeader {
		voters = []uint64{1} // wins alone
	}
	ms := raft.NewMemoryStorage()
	must(ms.ApplySnapshot(&raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{
		Index: new(uint64(1)), Term: new(uint64(1)), ConfState: &raftpb.ConfState{Voters: voters}}}))
	rn, err := raft.NewRawNode(&raft.Config{ID: 1, ElectionTick: electionTick, HeartbeatTick: 1, Storage: ms,
		Applied: 1, MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, Logger: kvapp.Logger{}})
	must(err)
	if role == raft.StateFollower {
		return rn
	}
	must(rn.Campaign())
	// The candidate's own vote counts once it is persisted: on Advance.
	for rn.BasicStatus().RaftState != role && rn.HasReady() {
		rn.Advance(rn.Ready())
	}
	return rn
}
