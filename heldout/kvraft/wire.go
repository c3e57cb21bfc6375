package kvraft

import (
	"fmt"
	"strconv"

	"github.com/vmihailenco/msgpack/v5"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// Client requests: external messages the fuzzer sends to a member.
type (
	// Put sets Key to Value. The member proposes it to raft (a follower's
	// raft forwards the proposal to the leader it knows).
	Put struct {
		Key   string `msgpack:"k"`
		Value string `msgpack:"v"`
	}
	// Append appends Value to Key's value: not idempotent, so an entry
	// applied twice shows.
	Append struct {
		Key   string `msgpack:"k"`
		Value string `msgpack:"v"`
	}
	// Get reads Key. The member asks raft for a read index (the leader
	// confirms with a quorum that it still leads) and answers once it has
	// applied the log up to it.
	Get struct {
		Key string `msgpack:"k"`
	}
)

// Timers.
type (
	// Campaign is a member's election timer (key "campaign"): firing it
	// calls RawNode.Campaign. Elections start only this way.
	Campaign struct{}
	// Tick is the leader's heartbeat timer (key "tick"): RawNode.Tick.
	Tick struct{}
)

// AdvancesClock reports that a Campaign starts a new term
// (record.ClockAdvancer).
func (Campaign) AdvancesClock() bool { return true }

// Wire carries one raft message between members. One wrapper type per
// kind of raft message embeds it, so that minimization's coarse match (by
// Go type) tells votes from appends. A trace stores the message as its
// deterministic protobuf encoding.
type Wire struct{ Msg *raftpb.Message }

var wireOpts = proto.MarshalOptions{Deterministic: true}

// EncodeMsgpack writes the message's protobuf encoding.
func (w Wire) EncodeMsgpack(enc *msgpack.Encoder) error {
	b, err := wireOpts.Marshal(w.Msg)
	if err != nil {
		return fmt.Errorf("kvraft: encode message: %w", err)
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
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("kvraft: decode message: %w", err)
	}
	w.Msg = m
	return nil
}

// LogicalClock is the message's term (record.Clocked).
func (w Wire) LogicalClock() int { return int(w.Msg.GetTerm()) }

func (w Wire) String() string {
	m := w.Msg
	s := fmt.Sprintf("%v %d→%d t%d i%d/t%d c%d", m.GetType(), m.GetFrom(), m.GetTo(),
		m.GetTerm(), m.GetIndex(), m.GetLogTerm(), m.GetCommit())
	if m.GetReject() {
		s += " reject"
	}
	for _, e := range m.GetEntries() {
		s += " " + strconv.Quote(string(e.GetData()))
	}
	return s
}

// The wrappers, one per kind of raft message members send.
type (
	App           struct{ Wire } // MsgApp
	AppResp       struct{ Wire } // MsgAppResp
	Vote          struct{ Wire } // MsgVote
	VoteResp      struct{ Wire } // MsgVoteResp
	Heartbeat     struct{ Wire } // MsgHeartbeat
	HeartbeatResp struct{ Wire } // MsgHeartbeatResp
	Prop          struct{ Wire } // MsgProp: a forwarded proposal
	ReadIndex     struct{ Wire } // MsgReadIndex: a forwarded read
	ReadIndexResp struct{ Wire } // MsgReadIndexResp
	Snap          struct{ Wire } // MsgSnap
	OtherMsg      struct{ Wire } // anything else
)

// wrap puts a copy of m in the wrapper of its kind.
func wrap(m *raftpb.Message) record.Message {
	w := Wire{Msg: proto.Clone(m).(*raftpb.Message)}
	switch m.GetType() {
	case raftpb.MsgApp:
		return App{w}
	case raftpb.MsgAppResp:
		return AppResp{w}
	case raftpb.MsgVote:
		return Vote{w}
	case raftpb.MsgVoteResp:
		return VoteResp{w}
	case raftpb.MsgHeartbeat:
		return Heartbeat{w}
	case raftpb.MsgHeartbeatResp:
		return HeartbeatResp{w}
	case raftpb.MsgProp:
		return Prop{w}
	case raftpb.MsgReadIndex:
		return ReadIndex{w}
	case raftpb.MsgReadIndexResp:
		return ReadIndexResp{w}
	case raftpb.MsgSnap:
		return Snap{w}
	}
	return OtherMsg{w}
}

// carried returns the raft message a wrapper holds (not a copy), or nil.
func carried(msg record.Message) *raftpb.Message {
	switch m := msg.(type) {
	case App:
		return m.Msg
	case AppResp:
		return m.Msg
	case Vote:
		return m.Msg
	case VoteResp:
		return m.Msg
	case Heartbeat:
		return m.Msg
	case HeartbeatResp:
		return m.Msg
	case Prop:
		return m.Msg
	case ReadIndex:
		return m.Msg
	case ReadIndexResp:
		return m.Msg
	case Snap:
		return m.Msg
	case OtherMsg:
		return m.Msg
	}
	return nil
}

// fingerprint identifies a raft message across runs of a minimization by
// its kind, sender, receiver, rejection and the data of its entries, not
// by its term and indices (which shift when an earlier event is removed).
func fingerprint(msg record.Message) (string, bool) {
	m := carried(msg)
	if m == nil {
		return "", false
	}
	s := fmt.Sprintf("%v %d>%d", m.GetType(), m.GetFrom(), m.GetTo())
	if m.GetReject() {
		s += " reject"
	}
	for _, e := range m.GetEntries() {
		s += " " + strconv.Quote(string(e.GetData()))
	}
	return s, true
}

func messages() []record.Message {
	return []record.Message{
		Put{}, Append{}, Get{}, Campaign{}, Tick{},
		App{}, AppResp{}, Vote{}, VoteResp{}, Heartbeat{}, HeartbeatResp{},
		Prop{}, ReadIndex{}, ReadIndexResp{}, Snap{}, OtherMsg{},
	}
}
