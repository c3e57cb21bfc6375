package etcdraft

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// Wire carries one raftpb.Message between members. It is embedded in one
// wrapper type per raft message kind (App, Vote, Heartbeat, …): demi's
// coarse match of messages is by Go type, so one type for all of raft's
// messages would make every message look alike to minimization. A trace
// stores the message as its deterministic protobuf encoding.
type Wire struct {
	Msg *raftpb.Message
}

// EncodeMsgpack writes the message's deterministic protobuf encoding.
func (w Wire) EncodeMsgpack(enc *msgpack.Encoder) error {
	b, err := w.Msg.Marshal()
	if err != nil {
		return fmt.Errorf("etcdraft: encode %v: %w", w.Msg.Type, err)
	}
	return enc.EncodeBytes(b)
}

// DecodeMsgpack reads what EncodeMsgpack wrote.
func (w *Wire) DecodeMsgpack(dec *msgpack.Decoder) error {
	b, err := dec.DecodeBytes()
	if err != nil {
		return err
	}
	m := &raftpb.Message{}
	if err := m.Unmarshal(b); err != nil {
		return fmt.Errorf("etcdraft: decode message: %w", err)
	}
	w.Msg = m
	return nil
}

func (w Wire) String() string {
	return raft.DescribeMessage(*w.Msg, kvapp.DescribeData)
}

// The wrapper types, one per kind of raft message a member sends.
type (
	// App is MsgApp: the leader replicates entries.
	App struct{ Wire }
	// AppResp is MsgAppResp: a follower accepts or rejects an App.
	AppResp struct{ Wire }
	// Vote is MsgVote: a candidate asks for a vote.
	Vote struct{ Wire }
	// VoteResp is MsgVoteResp: the answer to a Vote.
	VoteResp struct{ Wire }
	// PreVote is MsgPreVote (with the pre-vote option).
	PreVote struct{ Wire }
	// PreVoteResp is MsgPreVoteResp.
	PreVoteResp struct{ Wire }
	// Heartbeat is MsgHeartbeat, the leader's heartbeat.
	Heartbeat struct{ Wire }
	// HeartbeatResp is MsgHeartbeatResp.
	HeartbeatResp struct{ Wire }
	// Snap is MsgSnap: the leader sends a snapshot to a follower whose next
	// entries it has compacted away.
	Snap struct{ Wire }
	// Prop is MsgProp: a follower forwards a client proposal to the leader.
	Prop struct{ Wire }
	// TimeoutNow is MsgTimeoutNow (leadership transfer).
	TimeoutNow struct{ Wire }
	// ReadIndex is MsgReadIndex: a follower forwards a client read to the
	// leader, which confirms it still leads before answering.
	ReadIndex struct{ Wire }
	// ReadIndexResp is MsgReadIndexResp: the leader's answer, the commit
	// index the read must wait for.
	ReadIndexResp struct{ Wire }
	// OtherMsg is any other kind of raft message.
	OtherMsg struct{ Wire }
)

// wrap puts a copy of m (the sender keeps no reference to what it sent)
// in the wrapper type of its kind.
func wrap(m *raftpb.Message) record.Message {
	w := Wire{Msg: cloneMessage(m)}
	switch m.Type {
	case raftpb.MsgApp:
		return App{w}
	case raftpb.MsgAppResp:
		return AppResp{w}
	case raftpb.MsgVote:
		return Vote{w}
	case raftpb.MsgVoteResp:
		return VoteResp{w}
	case raftpb.MsgPreVote:
		return PreVote{w}
	case raftpb.MsgPreVoteResp:
		return PreVoteResp{w}
	case raftpb.MsgHeartbeat:
		return Heartbeat{w}
	case raftpb.MsgHeartbeatResp:
		return HeartbeatResp{w}
	case raftpb.MsgSnap:
		return Snap{w}
	case raftpb.MsgProp:
		return Prop{w}
	case raftpb.MsgTimeoutNow:
		return TimeoutNow{w}
	case raftpb.MsgReadIndex:
		return ReadIndex{w}
	case raftpb.MsgReadIndexResp:
		return ReadIndexResp{w}
	}
	return OtherMsg{w}
}

// unwrap returns a copy of the raft message a wrapper carries (the
// receiver must not share memory with the sender, nor change the message
// the trace holds), or nil if msg is not a wrapper.
func unwrap(msg record.Message) *raftpb.Message {
	m := carried(msg)
	if m == nil {
		return nil
	}
	return cloneMessage(m)
}

// carried returns the raft message a wrapper carries, not a copy: the
// caller must not change it. It is nil if msg is not a wrapper.
func carried(msg record.Message) *raftpb.Message {
	var w Wire
	switch m := msg.(type) {
	case App:
		w = m.Wire
	case AppResp:
		w = m.Wire
	case Vote:
		w = m.Wire
	case VoteResp:
		w = m.Wire
	case PreVote:
		w = m.Wire
	case PreVoteResp:
		w = m.Wire
	case Heartbeat:
		w = m.Wire
	case HeartbeatResp:
		w = m.Wire
	case Snap:
		w = m.Wire
	case Prop:
		w = m.Wire
	case TimeoutNow:
		w = m.Wire
	case ReadIndex:
		w = m.Wire
	case ReadIndexResp:
		w = m.Wire
	case OtherMsg:
		w = m.Wire
	default:
		return nil
	}
	return w.Msg
}

// Put is a client's request (an external message) to set Key to Value, or
// to delete Key when Value is empty. The member proposes it to raft; a
// follower's raft forwards it to the leader it knows (as a Prop).
type Put struct {
	Key   string `msgpack:"k"`
	Value string `msgpack:"v,omitempty"`
}

// Get is a client's read of Key (an external message). The member asks raft
// for a read index (RawNode.ReadIndex: the leader confirms with a quorum
// that it still leads) and answers once it has applied the log up to that
// index; the answer is ghost state for the Linearizability invariant.
type Get struct {
	Key string `msgpack:"k"`
}

// Campaign is a member's election timer (key "campaign"). demi decides when
// it fires; firing calls RawNode.Campaign. It is the only way a member
// starts an election: ticks cannot (see the package documentation).
type Campaign struct{}

// Tick is the leader's heartbeat timer (key "tick"): firing calls
// RawNode.Tick once, which makes the leader send heartbeats.
type Tick struct{}

// ReadRetry is a member's read-retry timer (key "read-retry", with the
// read-retry option): firing asks raft again, with the same request
// context, for the read index of every read still waiting for one, as
// etcd's server retries a ReadIndex request that got no answer in time.
type ReadRetry struct{}

// messages lists one value of every message type, for record.System.
func messages() []record.Message {
	return []record.Message{
		Put{}, Campaign{}, Tick{},
		App{}, AppResp{}, Vote{}, VoteResp{}, PreVote{}, PreVoteResp{},
		Heartbeat{}, HeartbeatResp{}, Snap{}, Prop{}, TimeoutNow{}, OtherMsg{},
		Get{}, ReadIndex{}, ReadIndexResp{}, ReadRetry{},
	}
}
