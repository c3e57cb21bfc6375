package etcdraft33

import (
	"fmt"
	"strconv"

	"github.com/coreos/etcd/raft"
	"github.com/coreos/etcd/raft/raftpb"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/demi-project/demi/record"
)

// Wire carries one raftpb.Message between members. It is embedded in one
// wrapper type per raft message kind (PreVote, Vote, App, …): demi's
// coarse match of messages is by Go type, so one type for all of raft's
// messages would make every message look alike to minimization. A trace
// stores the message as its protobuf encoding.
type Wire struct {
	Msg raftpb.Message
}

// EncodeMsgpack writes the message's protobuf encoding.
func (w Wire) EncodeMsgpack(enc *msgpack.Encoder) error {
	b, err := w.Msg.Marshal()
	if err != nil {
		return fmt.Errorf("etcdraft33: encode %v: %w", w.Msg.Type, err)
	}
	return enc.EncodeBytes(b)
}

// DecodeMsgpack reads what EncodeMsgpack wrote.
func (w *Wire) DecodeMsgpack(dec *msgpack.Decoder) error {
	b, err := dec.DecodeBytes()
	if err != nil {
		return err
	}
	var m raftpb.Message
	if err := m.Unmarshal(b); err != nil {
		return fmt.Errorf("etcdraft33: decode message: %w", err)
	}
	w.Msg = m
	return nil
}

func (w Wire) String() string {
	return raft.DescribeMessage(w.Msg, func(b []byte) string { return strconv.Quote(string(b)) })
}

// The wrapper types, one per kind of raft message a member sends.
type (
	// PreVote is MsgPreVote: a pre-candidate asks whether it could win.
	PreVote struct{ Wire }
	// PreVoteResp is MsgPreVoteResp.
	PreVoteResp struct{ Wire }
	// Vote is MsgVote: a candidate asks for a vote.
	Vote struct{ Wire }
	// VoteResp is MsgVoteResp: the answer to a Vote.
	VoteResp struct{ Wire }
	// App is MsgApp: the leader replicates entries.
	App struct{ Wire }
	// AppResp is MsgAppResp: a follower accepts or rejects an App.
	AppResp struct{ Wire }
	// Heartbeat is MsgHeartbeat, the leader's heartbeat.
	Heartbeat struct{ Wire }
	// HeartbeatResp is MsgHeartbeatResp.
	HeartbeatResp struct{ Wire }
	// Prop is MsgProp: a follower forwards a client proposal to the leader.
	Prop struct{ Wire }
	// OtherMsg is any other kind of raft message.
	OtherMsg struct{ Wire }
)

// wrap puts a copy of m in the wrapper type of its kind: the sender keeps
// no reference to what it sent.
func wrap(m raftpb.Message) record.Message {
	w := Wire{Msg: clone(m)}
	switch m.Type {
	case raftpb.MsgPreVote:
		return PreVote{w}
	case raftpb.MsgPreVoteResp:
		return PreVoteResp{w}
	case raftpb.MsgVote:
		return Vote{w}
	case raftpb.MsgVoteResp:
		return VoteResp{w}
	case raftpb.MsgApp:
		return App{w}
	case raftpb.MsgAppResp:
		return AppResp{w}
	case raftpb.MsgHeartbeat:
		return Heartbeat{w}
	case raftpb.MsgHeartbeatResp:
		return HeartbeatResp{w}
	case raftpb.MsgProp:
		return Prop{w}
	}
	return OtherMsg{w}
}

// carried returns the raft message a wrapper carries, or false if msg is
// not a wrapper. The caller must not change what it points to.
func carried(msg record.Message) (*raftpb.Message, bool) {
	var w Wire
	switch m := msg.(type) {
	case PreVote:
		w = m.Wire
	case PreVoteResp:
		w = m.Wire
	case Vote:
		w = m.Wire
	case VoteResp:
		w = m.Wire
	case App:
		w = m.Wire
	case AppResp:
		w = m.Wire
	case Heartbeat:
		w = m.Wire
	case HeartbeatResp:
		w = m.Wire
	case Prop:
		w = m.Wire
	case OtherMsg:
		w = m.Wire
	default:
		return nil, false
	}
	return &w.Msg, true
}

// clone returns a deep copy of m: the receiver of a message must share no
// memory with its sender, nor with the trace that holds it.
func clone(m raftpb.Message) raftpb.Message {
	b, err := m.Marshal()
	if err != nil {
		panic(fmt.Sprintf("etcdraft33: marshal %v: %v", m.Type, err))
	}
	var c raftpb.Message
	if err := c.Unmarshal(b); err != nil {
		panic(fmt.Sprintf("etcdraft33: unmarshal %v: %v", m.Type, err))
	}
	return c
}

// Campaign is a member's election timer (key "campaign"). demi decides when
// it fires; firing calls RawNode.Campaign. It is the only way a member
// starts an election: ticks cannot (see the package documentation).
type Campaign struct{}

// Tick is the leader's heartbeat timer (key "tick"): firing calls
// RawNode.Tick once, which makes the leader send heartbeats.
type Tick struct{}

// Propose is a client's request (an external message): the member
// proposes Data to raft (a follower's raft forwards it to the leader it
// knows, as a Prop; with no leader known it is dropped, as raft drops it).
type Propose struct {
	Data string `msgpack:"d"`
}

// messages lists one value of every message type, for record.System.
func messages() []record.Message {
	return []record.Message{
		Campaign{}, Tick{}, Propose{},
		PreVote{}, PreVoteResp{}, Vote{}, VoteResp{}, App{}, AppResp{},
		Heartbeat{}, HeartbeatResp{}, Prop{}, OtherMsg{},
	}
}

// The round view (record.Rounded): a raft message's round is its term and
// its phase its kind, so demi show --rounds lays a trace out term by term.
// A pre-vote asks for the term its sender would campaign in.

// Round returns the term and the kind (record.Rounded).
func (m PreVote) Round() (int, string) { return m.round("pre-vote") }

// Round returns the term and the kind (record.Rounded).
func (m PreVoteResp) Round() (int, string) { return m.round("pre-vote-resp") }

// Round returns the term and the kind (record.Rounded).
func (m Vote) Round() (int, string) { return m.round("vote") }

// Round returns the term and the kind (record.Rounded).
func (m VoteResp) Round() (int, string) { return m.round("vote-resp") }

// Round returns the term and the kind (record.Rounded).
func (m App) Round() (int, string) { return m.round("append") }

// Round returns the term and the kind (record.Rounded).
func (m AppResp) Round() (int, string) { return m.round("append-resp") }

// Round returns the term and the kind (record.Rounded).
func (m Heartbeat) Round() (int, string) { return m.round("heartbeat") }

// Round returns the term and the kind (record.Rounded).
func (m HeartbeatResp) Round() (int, string) { return m.round("heartbeat-resp") }

func (w Wire) round(phase string) (int, string) { return int(w.Msg.Term), phase }

// LogicalClock returns the message's term (record.Clocked): minimization
// removes whole terms at once.
func (w Wire) LogicalClock() int { return int(w.Msg.Term) }

// AdvancesClock reports that a Campaign starts a new term
// (record.ClockAdvancer).
func (Campaign) AdvancesClock() bool { return true }

// fingerprint is the system's message fingerprint (record.System.Fingerprint):
// a raft message's kind, sender, receiver and whether it rejects, but not
// its terms and indices, which shift by one whenever minimization removes
// an election. Timers and client requests keep demi's default.
func fingerprint(msg record.Message) (string, bool) {
	m, ok := carried(msg)
	if !ok {
		return "", false
	}
	s := m.Type.String() + " " + strconv.FormatUint(m.From, 10) + ">" + strconv.FormatUint(m.To, 10)
	if m.Reject {
		s += " reject"
	}
	return s, true
}
