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
