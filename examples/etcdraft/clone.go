package etcdraft

import (
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// cloneMessage returns a deep copy of a raft message: what proto.Clone
// returns (the same fields set, with the same values: a nil bytes field
// stays nil, an empty one stays empty, an empty list of entries becomes
// nil), at a fraction of its cost. Every member copies each message it
// sends and each it receives (wrap, unwrap), so proto.Clone, which walks
// the message by its descriptor and allocates each field on its own, was
// one of the adapter's largest per-event costs. The copy allocates the
// message's scalar fields in one block, and the entries, their scalar
// fields and their data in one block each.
//
// A message with a snapshot, responses or unknown fields (which members
// never send, except snapshots on MsgSnap) is left to proto.Clone.
func cloneMessage(m *raftpb.Message) *raftpb.Message {
	if m == nil {
		return nil
	}
	if m.Snapshot != nil || len(m.Responses) > 0 || len(m.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(m).(*raftpb.Message)
	}
	var s struct {
		typ                                                      raftpb.MessageType
		reject                                                   bool
		to, from, term, logTerm, index, commit, vote, rejectHint uint64
	}
	c := &raftpb.Message{}
	sc := &s
	copyPtr(&c.Type, m.Type, &sc.typ)
	copyPtr(&c.Reject, m.Reject, &sc.reject)
	copyPtr(&c.To, m.To, &sc.to)
	copyPtr(&c.From, m.From, &sc.from)
	copyPtr(&c.Term, m.Term, &sc.term)
	copyPtr(&c.LogTerm, m.LogTerm, &sc.logTerm)
	copyPtr(&c.Index, m.Index, &sc.index)
	copyPtr(&c.Commit, m.Commit, &sc.commit)
	copyPtr(&c.Vote, m.Vote, &sc.vote)
	copyPtr(&c.RejectHint, m.RejectHint, &sc.rejectHint)
	if m.Context != nil {
		c.Context = append([]byte{}, m.Context...)
	}
	c.Entries = cloneEntries(m.Entries)
	return c
}

// copyPtr copies an optional scalar field: when src is set, its value goes
// to slot (memory the copy owns) and dst points at it.
func copyPtr[T any](dst **T, src *T, slot *T) {
	if src != nil {
		*slot = *src
		*dst = slot
	}
}

// entryScalars are the scalar fields of one copied entry.
type entryScalars struct {
	term, index uint64
	typ         raftpb.EntryType
}

// cloneEntries copies a list of entries the way proto.Clone copies the
// Entries field (nil when empty); it falls back to proto.Clone for an
// entry with unknown fields.
func cloneEntries(src []*raftpb.Entry) []*raftpb.Entry {
	if len(src) == 0 {
		return nil
	}
	n := 0
	for _, e := range src {
		if e == nil || len(e.ProtoReflect().GetUnknown()) > 0 {
			out := make([]*raftpb.Entry, len(src))
			for i, e := range src {
				out[i] = proto.Clone(e).(*raftpb.Entry)
			}
			return out
		}
		n += len(e.Data)
	}
	out := make([]*raftpb.Entry, len(src))
	ents := make([]raftpb.Entry, len(src))
	scs := make([]entryScalars, len(src))
	data := make([]byte, 0, n)
	for i, e := range src {
		c, s := &ents[i], &scs[i]
		copyPtr(&c.Term, e.Term, &s.term)
		copyPtr(&c.Index, e.Index, &s.index)
		copyPtr(&c.Type, e.Type, &s.typ)
		if e.Data != nil {
			start := len(data)
			data = append(data, e.Data...)
			c.Data = data[start:len(data):len(data)]
		}
		out[i] = c
	}
	return out
}

// cloneEntry returns a deep copy of an entry: what proto.Clone returns, as
// cloneEntries copies each entry; proto.Clone copies an entry with
// unknown fields.
func cloneEntry(e *raftpb.Entry) *raftpb.Entry {
	if e == nil || len(e.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(e).(*raftpb.Entry)
	}
	var b struct {
		c raftpb.Entry
		s entryScalars
	}
	c, s := &b.c, &b.s
	copyPtr(&c.Term, e.Term, &s.term)
	copyPtr(&c.Index, e.Index, &s.index)
	copyPtr(&c.Type, e.Type, &s.typ)
	if e.Data != nil {
		c.Data = append(make([]byte, 0, len(e.Data)), e.Data...)
	}
	return c
}

// cloneHardState returns a deep copy of a hard state: what proto.Clone
// returns; proto.Clone copies one with unknown fields.
func cloneHardState(h *raftpb.HardState) *raftpb.HardState {
	if len(h.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(h).(*raftpb.HardState)
	}
	var b struct {
		c                  raftpb.HardState
		term, vote, commit uint64
	}
	c := &b.c
	copyPtr(&c.Term, h.Term, &b.term)
	copyPtr(&c.Vote, h.Vote, &b.vote)
	copyPtr(&c.Commit, h.Commit, &b.commit)
	return c
}

// cloneConfState returns a deep copy of a configuration state: what
// proto.Clone returns (an empty list becomes nil); proto.Clone copies one
// with unknown fields.
func cloneConfState(s *raftpb.ConfState) *raftpb.ConfState {
	if len(s.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(s).(*raftpb.ConfState)
	}
	var b struct {
		c         raftpb.ConfState
		autoLeave bool
	}
	c := &b.c
	c.Voters = cloneIDs(s.Voters)
	c.Learners = cloneIDs(s.Learners)
	c.VotersOutgoing = cloneIDs(s.VotersOutgoing)
	c.LearnersNext = cloneIDs(s.LearnersNext)
	copyPtr(&c.AutoLeave, s.AutoLeave, &b.autoLeave)
	return c
}

// cloneIDs copies a repeated field as proto.Clone does: nil when empty.
func cloneIDs(ids []uint64) []uint64 {
	if len(ids) == 0 {
		return nil
	}
	return append([]uint64(nil), ids...)
}

// cloneSnapshot returns a deep copy of a snapshot (a member's storage
// holds its last one): what proto.Clone returns; proto.Clone copies one
// with unknown fields.
func cloneSnapshot(s *raftpb.Snapshot) *raftpb.Snapshot {
	if s == nil || len(s.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(s).(*raftpb.Snapshot)
	}
	c := &raftpb.Snapshot{}
	if s.Data != nil {
		c.Data = append([]byte{}, s.Data...)
	}
	if s.Metadata != nil {
		c.Metadata = cloneSnapshotMetadata(s.Metadata)
	}
	return c
}

// cloneSnapshotMetadata returns a deep copy of a snapshot's metadata: what
// proto.Clone returns; proto.Clone copies one with unknown fields.
func cloneSnapshotMetadata(m *raftpb.SnapshotMetadata) *raftpb.SnapshotMetadata {
	if m == nil || len(m.ProtoReflect().GetUnknown()) > 0 {
		return proto.Clone(m).(*raftpb.SnapshotMetadata)
	}
	var b struct {
		c           raftpb.SnapshotMetadata
		index, term uint64
	}
	c := &b.c
	copyPtr(&c.Index, m.Index, &b.index)
	copyPtr(&c.Term, m.Term, &b.term)
	if m.ConfState != nil {
		c.ConfState = cloneConfState(m.ConfState)
	}
	return c
}
