package fingerprint_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

type wrapped struct {
	M    *raftpb.Message
	hide *raftpb.Message
}

func raftMsg(term uint64) *raftpb.Message {
	return &raftpb.Message{Type: raftpb.MsgApp.Enum(), To: new(uint64(2)), From: new(uint64(1)), Term: new(term),
		Entries: []*raftpb.Entry{{Term: new(term), Index: new(uint64(5)), Data: []byte("set k v")}}}
}

func TestProtoMessagesByWireEncoding(t *testing.T) {
	f := fingerprint.New(nil)
	a := raftMsg(3)
	before := f.Of(wrapped{M: a, hide: a})

	// Marshalling fills the message's size cache (an unexported field):
	// the fingerprint must not change.
	_, err := proto.Marshal(a)
	require.NoError(t, err)
	assert.Equal(t, before, f.Of(wrapped{M: a, hide: a}), "marshalling does not change the fingerprint")
	assert.Equal(t, before, f.Of(wrapped{M: raftMsg(3), hide: raftMsg(3)}), "equal content, equal fingerprint")
	assert.Equal(t, f.Of(a), f.Of(proto.Clone(a)), "the message itself")

	other := f.Of(wrapped{M: raftMsg(4), hide: a})
	assert.NotEqual(t, before.Full, other.Full, "another term, another fingerprint")
	assert.Equal(t, before.Type, other.Type)
	hidden := f.Of(wrapped{M: a, hide: raftMsg(4)})
	assert.NotEqual(t, before.Full, hidden.Full, "unexported protobuf fields take part too")
	assert.NotEqual(t, before.Full, f.Of(wrapped{M: nil, hide: a}).Full)
}

func TestForUsesTheSystemsFingerprint(t *testing.T) {
	sys := &record.System{Fingerprint: func(m record.Message) (string, bool) { return "all the same", true }}
	f := fingerprint.For(sys, nil)
	assert.Equal(t, f.Of(raftMsg(1)), f.Of(raftMsg(2)), "the system's function decides")

	user := fingerprint.For(sys, func(m record.Message) (string, bool) { return "", false })
	assert.NotEqual(t, user.Of(raftMsg(1)), user.Of(raftMsg(2)), "a given function overrides the system's")
	assert.NotEqual(t, fingerprint.For(nil, nil).Of(raftMsg(1)), fingerprint.For(nil, nil).Of(raftMsg(2)))
}
