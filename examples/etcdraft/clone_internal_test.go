package etcdraft

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// shippedMessages returns every raft message the shipped etcdraft traces
// deliver (all five bugs, fuzz, reference and minimized traces), and
// messages with the field shapes those do not show.
func shippedMessages(t *testing.T) []*raftpb.Message {
	t.Helper()
	files, err := filepath.Glob("../traces/etcdraft-*.trace")
	require.NoError(t, err)
	require.Len(t, files, 15)
	var out []*raftpb.Message
	for _, f := range files {
		tr, _, err := record.ReadFile(f, record.NewCatalog(System()))
		require.NoError(t, err)
		for _, e := range tr.Events {
			if m := carried(e.Msg); m != nil {
				out = append(out, m)
			}
		}
	}
	u := func(x uint64) *uint64 { return &x }
	typ := func(x raftpb.MessageType) *raftpb.MessageType { return &x }
	etyp := func(x raftpb.EntryType) *raftpb.EntryType { return &x }
	reject := true
	unknown := &raftpb.Message{Type: typ(raftpb.MsgApp)}
	unknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 7))
	unknownEntry := &raftpb.Entry{Index: u(3)}
	unknownEntry.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 7))
	return append(out,
		&raftpb.Message{},
		&raftpb.Message{Type: typ(raftpb.MsgAppResp), To: u(1), From: u(2), Term: u(0), Reject: &reject, RejectHint: u(4),
			Vote: u(2), Commit: u(9), LogTerm: u(3), Index: u(8), Context: []byte{}},
		&raftpb.Message{Type: typ(raftpb.MsgReadIndex), Context: []byte("r12"), Entries: []*raftpb.Entry{{Data: []byte("r12")}}},
		&raftpb.Message{Type: typ(raftpb.MsgApp), Entries: []*raftpb.Entry{}},
		&raftpb.Message{Type: typ(raftpb.MsgApp), Entries: []*raftpb.Entry{
			{}, {Term: u(2), Index: u(5), Type: etyp(raftpb.EntryConfChange), Data: []byte{}}, {Data: []byte("set k1 \x00\xff")}}},
		&raftpb.Message{Type: typ(raftpb.MsgSnap), Snapshot: &raftpb.Snapshot{Data: []byte("k1=2\n"),
			Metadata: &raftpb.SnapshotMetadata{Index: u(7), ConfState: &raftpb.ConfState{Voters: []uint64{1, 2, 3}}}}},
		&raftpb.Message{Type: typ(raftpb.MsgStorageAppend), Responses: []*raftpb.Message{{Type: typ(raftpb.MsgAppResp)}}},
		unknown,
		&raftpb.Message{Type: typ(raftpb.MsgApp), Entries: []*raftpb.Entry{{Index: u(2)}, unknownEntry}},
	)
}

// settle fills in the protobuf runtime's lazily set message state of m
// and its entries, so that reflect.DeepEqual compares fields only.
func settle(m *raftpb.Message) *raftpb.Message {
	m.ProtoReflect()
	for _, e := range m.Entries {
		e.ProtoReflect()
	}
	return m
}

// TestCloneMessage checks cloneMessage against proto.Clone on every
// message of the shipped traces and on edge cases: the same fields set to
// the same values (nil and empty bytes told apart), the same encoding,
// and no memory shared with the original.
func TestCloneMessage(t *testing.T) {
	msgs := shippedMessages(t)
	require.Greater(t, len(msgs), 5000)
	kinds := map[raftpb.MessageType]bool{}
	for i, m := range msgs {
		kinds[m.GetType()] = true
		c, want := cloneMessage(m), proto.Clone(m).(*raftpb.Message)
		require.True(t, reflect.DeepEqual(settle(want), settle(c)), "message %d: %v\ngot  %v\nwant %v", i, m, c, want)
		require.True(t, proto.Equal(m, c), "message %d", i)
		requireSameEncoding(t, want, c, i)
		require.Empty(t, shared(reflect.ValueOf(m), reflect.ValueOf(c), "m"), "message %d", i)
	}
	for _, k := range []raftpb.MessageType{raftpb.MsgApp, raftpb.MsgAppResp, raftpb.MsgVote, raftpb.MsgVoteResp,
		raftpb.MsgHeartbeat, raftpb.MsgHeartbeatResp, raftpb.MsgSnap, raftpb.MsgProp, raftpb.MsgReadIndex, raftpb.MsgReadIndexResp} {
		assert.True(t, kinds[k], "no %v among the messages", k)
	}
}

// TestCloneMessageIndependent checks that changing a copy's fields and
// entries in place (as raft does to a proposal's entries) leaves the
// original and the other entries alone.
func TestCloneMessageIndependent(t *testing.T) {
	for _, m := range shippedMessages(t) {
		if len(m.Entries) < 2 || m.Snapshot != nil {
			continue
		}
		want, err := proto.Marshal(m)
		require.NoError(t, err)
		c := cloneMessage(m)
		*c.Term, *c.Type = 99, raftpb.MsgTimeoutNow
		for _, e := range c.Entries {
			*e.Index, *e.Term = 1000, 1000
			e.Data = append(e.Data, 'x')
		}
		assert.Equal(t, "\"x\"", fmt.Sprintf("%q", c.Entries[0].Data[len(c.Entries[0].Data)-1:]))
		assert.True(t, strings.HasSuffix(string(c.Entries[1].Data), "x"))
		got, err := proto.Marshal(m)
		require.NoError(t, err)
		require.Equal(t, want, got)
		return
	}
	t.Fatal("no message with two entries")
}

// shared returns the path of a pointer or slice array a and b (a value
// and its copy) share, or "".
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range a.Len() {
			if p := shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fa := reflect.NewAt(f.Type, unsafe.Pointer(a.Field(i).UnsafeAddr())).Elem()
			fb := reflect.NewAt(f.Type, unsafe.Pointer(b.Field(i).UnsafeAddr())).Elem()
			if p := shared(fa, fb, path+"."+f.Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestCloneProto checks cloneProto, which Member.DeepCopy clones the
// messages of a member's state with, against proto.Clone: on the entries
// of every message of the shipped traces and on hard and configuration
// states and snapshots with every field unset, empty and set, the same
// fields set to the same values, the same encoding, and no memory shared.
func TestCloneProto(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	yes := true
	ms := []proto.Message{
		&raftpb.HardState{}, &raftpb.HardState{Term: u(3)}, &raftpb.HardState{Term: u(3), Vote: u(2), Commit: u(0)},
		&raftpb.ConfState{}, &raftpb.ConfState{Voters: []uint64{}, Learners: []uint64{4}},
		&raftpb.ConfState{Voters: []uint64{1, 2, 3}, VotersOutgoing: []uint64{1}, LearnersNext: []uint64{5}, AutoLeave: &yes},
		&raftpb.Entry{}, &raftpb.Entry{Data: []byte{}},
		&raftpb.Snapshot{}, &raftpb.Snapshot{Data: []byte{}, Metadata: &raftpb.SnapshotMetadata{}},
		&raftpb.Snapshot{Data: []byte("kv"), Metadata: &raftpb.SnapshotMetadata{Index: u(7), Term: u(2),
			ConfState: &raftpb.ConfState{Voters: []uint64{1, 2, 3}}}},
		&raftpb.SnapshotMetadata{Term: u(0)},
	}
	for _, m := range shippedMessages(t) {
		ms = append(ms, m)
		for _, e := range m.Entries {
			ms = append(ms, e)
		}
	}
	for i, m := range ms {
		c, want := cloneProto(m), proto.Clone(m)
		require.NotNil(t, c, "message %d (%T)", i, m)
		for _, x := range []proto.Message{c, want} {
			if mm, ok := x.(*raftpb.Message); ok {
				settle(mm)
			}
			if s, ok := x.(*raftpb.Snapshot); ok && s.Metadata != nil {
				s.Metadata.ProtoReflect()
				if s.Metadata.ConfState != nil {
					s.Metadata.ConfState.ProtoReflect()
				}
			}
			x.ProtoReflect()
		}
		require.True(t, reflect.DeepEqual(want, c), "message %d: %v\ngot  %v\nwant %v", i, m, c, want)
		requireSameEncoding(t, want, c, i)
		require.Empty(t, shared(reflect.ValueOf(m), reflect.ValueOf(c), "m"), "message %d", i)
	}
}

// requireSameEncoding requires that got encodes (deterministically) as
// want does; i numbers the message in the failure.
func requireSameEncoding(t *testing.T, want, got proto.Message, i int) {
	t.Helper()
	gb, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
	require.NoError(t, err)
	wb, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
	require.NoError(t, err)
	require.Equal(t, wb, gb, "message %d", i)
}
