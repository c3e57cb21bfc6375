package etcdraft33

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/coreos/etcd/raft"
	"github.com/coreos/etcd/raft/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// electionTick is the RawNode's ElectionTick: so large that no number of
// ticks ever starts an election or ends a CheckQuorum lease. Elections
// start only when demi fires a member's Campaign timer. The library draws
// each follower's randomized election timeout from math/rand, but the draw
// decides nothing when the timeout is never reached, so runs stay
// deterministic.
const electionTick = 1 << 20

// Timer keys.
const (
	timerCampaign = "campaign"
	timerTick     = "tick"
)

// What a member keeps in demi's stable storage (record.Context.Storage),
// the disk of a real deployment, as protobuf bytes: the HardState, the
// bootstrap snapshot, the log entries. keyLed is ghost state for
// ElectionSafety: the terms the member led.
const (
	keyHardState = "raft/hardstate"
	keySnapshot  = "raft/snapshot"
	keyLog       = "raft/log"
	keyLed       = "ghost/led"
)

// Member is one member of the cluster: a demi actor that holds a
// raft.RawNode and handles its Ready the way an application does.
type Member struct {
	id                   record.ActorID
	rid                  uint64 // raft ID: 1 … n
	n                    int
	prevote, checkQuorum bool

	rn     *raft.RawNode
	ms     *raft.MemoryStorage
	leader bool
}

func newMember(id record.ActorID, o record.Options) *Member {
	rid, _ := strconv.ParseUint(string(id[len(idPrefix):]), 10, 64)
	return &Member{id: id, rid: rid, n: o.Int(OptMembers),
		prevote: o.Bool(OptPreVote), checkQuorum: o.Bool(OptCheckQuorum)}
}

// Start rebuilds the member from stable storage: on the first start it
// writes the initial state (a snapshot at index 1 naming all members as
// voters, as an application bootstraps a cluster), on a restart it reads
// back the snapshot, the HardState and the log.
func (n *Member) Start(ctx *record.Context) {
	st := ctx.Storage()
	snap, ok := get[raftpb.Snapshot](st, keySnapshot)
	if !ok {
		nodes := make([]uint64, n.n)
		for i := range nodes {
			nodes[i] = uint64(i + 1)
		}
		snap = &raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{Index: 1, Term: 1, ConfState: raftpb.ConfState{Nodes: nodes}}}
		st.Put(keySnapshot, marshal(snap))
		st.Put(keyHardState, marshal(&raftpb.HardState{Term: 1, Commit: 1}))
	}
	hs, _ := get[raftpb.HardState](st, keyHardState)
	n.ms = raft.NewMemoryStorage()
	must(n.ms.ApplySnapshot(*snap))
	must(n.ms.Append(storedEntries(st)))
	must(n.ms.SetHardState(*hs))
	rn, err := raft.NewRawNode(&raft.Config{
		ID: n.rid, ElectionTick: electionTick, HeartbeatTick: 1, Storage: n.ms, Applied: snap.Metadata.Index,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, PreVote: n.prevote, CheckQuorum: n.checkQuorum, Logger: kvapp.Logger{},
	}, nil)
	must(err)
	n.rn = rn
	ctx.SetTimer(timerCampaign, Campaign{})
	n.ready(ctx)
}

// Receive handles a timer, a client request or a raft message, then the
// Ready that follows.
func (n *Member) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Campaign:
		_ = n.rn.Campaign()
		if !n.leader {
			ctx.SetTimer(timerCampaign, Campaign{})
		}
	case Tick:
		n.rn.Tick()
		if n.leader {
			ctx.SetTimer(timerTick, Tick{})
		}
	case Propose:
		_ = n.rn.Propose([]byte(m.Data))
	default:
		if rm, ok := carried(msg); ok {
			_ = n.rn.Step(clone(*rm))
		}
	}
	n.ready(ctx)
}

// ready handles every pending Ready in the order raft's documentation asks
// of an application: write the entries and the HardState to stable
// storage, send the messages, Advance. (The committed entries are client
// data no state machine reads: the property at stake is elections.)
func (n *Member) ready(ctx *record.Context) {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if rd.SoftState != nil {
			n.roleChange(ctx, rd.SoftState.RaftState == raft.StateLeader)
		}
		st := ctx.Storage()
		saveEntries(st, rd.Entries)
		must(n.ms.Append(rd.Entries))
		if !raft.IsEmptyHardState(rd.HardState) {
			st.Put(keyHardState, marshal(&rd.HardState))
			must(n.ms.SetHardState(rd.HardState))
		}
		// v3.3 builds a Ready's messages by ranging over a map of peers, in
		// Go's random map order: sent by receiver (a stable sort keeps each
		// receiver's messages in raft's order), a run is deterministic.
		slices.SortStableFunc(rd.Messages, func(a, b raftpb.Message) int { return cmp.Compare(a.To, b.To) })
		for _, m := range rd.Messages {
			ctx.Send(memberID(m.To), wrap(m))
		}
		n.rn.Advance(rd)
	}
}

// roleChange arms the timers of the member's new role: a leader has a
// tick timer (heartbeats), the others a campaign timer. A new leader
// records its term (ghost state for ElectionSafety).
func (n *Member) roleChange(ctx *record.Context, leader bool) {
	if leader == n.leader {
		return
	}
	n.leader = leader
	if !leader {
		ctx.CancelTimer(timerTick)
		ctx.SetTimer(timerCampaign, Campaign{})
		return
	}
	ctx.CancelTimer(timerCampaign)
	ctx.SetTimer(timerTick, Tick{})
	st := ctx.Storage()
	led := slices.Clone(ledTerms(st))
	if term := n.rn.Status().Term; !slices.Contains(led, term) {
		st.Put(keyLed, append(led, term))
	}
}

// status is what the invariant, the liveness property and displays read
// of a member's raft state.
type status struct {
	state      raft.StateType
	term, lead uint64
	vote       uint64
	commit     uint64
	last       uint64
}

func (n *Member) status() status {
	s := n.rn.Status()
	last, _ := n.ms.LastIndex()
	return status{state: s.RaftState, term: s.Term, lead: s.Lead, vote: s.Vote, commit: s.Commit, last: last}
}

// Snapshot shows the member's raft state (record.Snapshotter).
func (n *Member) Snapshot() any {
	s := n.status()
	return map[string]any{"state": s.state.String(), "term": s.term, "lead": s.lead, "vote": s.vote,
		"commit": s.commit, "last": s.last}
}

// saveEntries appends entries to the stored log, replacing the entries at
// the same and later indices (a new leader may overwrite a suffix).
func saveEntries(st record.Storage, ents []raftpb.Entry) {
	if len(ents) == 0 {
		return
	}
	v, _ := st.Get(keyLog)
	log, _ := v.([][]byte)
	first := ents[0].Index
	keep := 0
	for keep < len(log) && unmarshal[raftpb.Entry](log[keep]).Index < first {
		keep++
	}
	out := slices.Clone(log[:keep])
	for i := range ents {
		out = append(out, marshal(&ents[i]))
	}
	st.Put(keyLog, out)
}

func storedEntries(st record.Storage) []raftpb.Entry {
	v, _ := st.Get(keyLog)
	log, _ := v.([][]byte)
	ents := make([]raftpb.Entry, len(log))
	for i, b := range log {
		ents[i] = *unmarshal[raftpb.Entry](b)
	}
	return ents
}

func ledTerms(st interface{ Get(string) (any, bool) }) []uint64 {
	v, _ := st.Get(keyLed)
	l, _ := v.([]uint64)
	return l
}

func marshal(m interface{ Marshal() ([]byte, error) }) []byte {
	b, err := m.Marshal()
	must(err)
	return b
}

func unmarshal[T any, P interface {
	*T
	Unmarshal([]byte) error
}](b []byte) P {
	m := P(new(T))
	must(m.Unmarshal(b))
	return m
}

func get[T any, P interface {
	*T
	Unmarshal([]byte) error
}](st record.Storage, key string) (P, bool) {
	v, ok := st.Get(key)
	if !ok {
		return nil, false
	}
	return unmarshal[T, P](v.([]byte)), true
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
