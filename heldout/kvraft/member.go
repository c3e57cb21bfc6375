package kvraft

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/record"
)

// electionTick is the RawNode's ElectionTick: larger than any number of
// ticks a run makes, so only the Campaign timer starts elections.
const electionTick = 1 << 20

const (
	timerCampaign = "campaign"
	timerTick     = "tick"
)

// read is a client Get waiting for its read index, then for the member to
// apply up to it.
type read struct {
	ID    string // the request context given to RawNode.ReadIndex
	Key   string
	Index uint64 // 0 until raft returns the read index
}

// Answer is a Get the member answered.
type Answer struct {
	Key, Value string
	Index      uint64 // the read index it waited for
}

// Member is one replica: a demi actor holding a raft.RawNode, which it
// drives as an application does (persist, send, apply, advance).
type Member struct {
	id      record.ActorID
	rid     uint64
	n       int
	reapply bool // bug switch reapply-after-restart

	rn      *raft.RawNode
	ms      *raft.MemoryStorage
	kv      KV
	applied uint64
	leader  bool
	reads   []read
	answers []Answer
}

func newMember(id record.ActorID, o record.Options) *Member {
	rid, _ := strconv.ParseUint(string(id[len(prefix):]), 10, 64)
	return &Member{id: id, rid: rid, n: o.Int(OptMembers), reapply: o.Bool(BugReapplyAfterRestart)}
}

// Start (re)builds the member from stable storage. On the first start it
// bootstraps: a snapshot at index 1 naming every member a voter. On a
// restart it reads back raft's HardState, snapshot and log, and its map
// with the index it was applied up to.
func (n *Member) Start(ctx *record.Context) {
	st := ctx.Storage()
	d, ok := load(st)
	if !ok {
		voters := make([]uint64, n.n)
		for i := range voters {
			voters[i] = uint64(i + 1)
		}
		one := uint64(1)
		d.snap = &raftpb.Snapshot{Data: []byte{}, Metadata: &raftpb.SnapshotMetadata{
			Index: &one, Term: &one, ConfState: &raftpb.ConfState{Voters: voters}}}
		d.hs = &raftpb.HardState{Term: &one, Commit: &one}
		saveSnapshot(st, d.snap)
		st.Put(keyHardState, marshal(d.hs))
		st.Put(keyApp, AppState{KV: KV{}, Applied: 1})
	}
	n.ms = raft.NewMemoryStorage()
	must(n.ms.ApplySnapshot(d.snap))
	must(n.ms.Append(d.ents))
	must(n.ms.SetHardState(d.hs))
	app := loadApp(st)
	n.kv, n.applied = app.KV, app.Applied
	applied := app.Applied
	if n.reapply {
		// Bug: raft is not told how far the restored map goes, so it hands
		// the member every committed entry after the snapshot again, and
		// the member applies them on top of the map.
		applied = d.snap.GetMetadata().GetIndex()
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID: n.rid, ElectionTick: electionTick, HeartbeatTick: 1, Storage: n.ms, Applied: applied,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 64, Logger: quiet{},
	})
	must(err)
	n.rn = rn
	ctx.SetTimer(timerCampaign, Campaign{})
	n.ready(ctx)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Receive handles a timer, a client request or a raft message, then the
// Ready that follows.
func (n *Member) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
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
	case Put:
		_ = n.rn.Propose(Command("put", m.Key, m.Value)) // dropped without a leader
	case Append:
		_ = n.rn.Propose(Command("append", m.Key, m.Value))
	case Get:
		// The event index names the request uniquely in the run, across
		// restarts.
		id := strconv.Itoa(ctx.EventIndex())
		n.reads = append(n.reads, read{ID: id, Key: m.Key})
		n.rn.ReadIndex([]byte(id))
	default:
		if rm := carried(msg); rm != nil {
			_ = n.rn.Step(proto.Clone(rm).(*raftpb.Message))
		}
	}
	n.ready(ctx)
}

// ready handles every pending Ready in the order raft asks: persist the
// snapshot, entries and HardState; send; apply; advance.
func (n *Member) ready(ctx *record.Context) {
	defer settle(n.rn)
	st := ctx.Storage()
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if rd.SoftState != nil {
			n.roleChange(ctx, rd.SoftState.RaftState == raft.StateLeader)
		}
		snap := !raft.IsEmptySnap(rd.Snapshot)
		if snap {
			saveSnapshot(st, rd.Snapshot)
			must(n.ms.ApplySnapshot(rd.Snapshot))
		}
		saveEntries(st, rd.Entries)
		must(n.ms.Append(rd.Entries))
		if !raft.IsEmptyHardState(rd.HardState) {
			st.Put(keyHardState, marshal(rd.HardState))
			must(n.ms.SetHardState(rd.HardState))
		}
		for _, m := range rd.Messages {
			ctx.Send(memberID(m.GetTo()), wrap(m))
		}
		if snap || len(rd.CommittedEntries) > 0 {
			if snap { // never happens without log compaction, but a snapshot replaces the map
				n.kv = KV{}
				n.applied = rd.Snapshot.GetMetadata().GetIndex()
			}
			n.apply(st, rd.CommittedEntries)
			st.Put(keyApp, AppState{KV: n.kv, Applied: n.applied})
		}
		for _, rs := range rd.ReadStates {
			for i := range n.reads {
				if n.reads[i].ID == string(rs.RequestCtx) {
					n.reads[i].Index = rs.Index
				}
			}
		}
		n.serveReads()
		n.rn.Advance(rd)
	}
}

// apply applies committed entries to the map, in order, and records the
// map's digest after each index the member applies for the first time
// (ghost state). It trusts raft to hand it only entries after the map's
// applied index (Config.Applied on a restart).
func (n *Member) apply(st record.Storage, ents []*raftpb.Entry) {
	if len(ents) == 0 {
		return
	}
	dig := Digests(st)
	for _, e := range ents {
		if e.GetType() == raftpb.EntryNormal {
			n.kv.Apply(e.GetData())
		}
		n.applied = e.GetIndex()
		i := int(e.GetIndex())
		for len(dig) <= i {
			dig = append(dig, "")
		}
		if dig[i] == "" {
			dig[i] = "@" + n.kv.Digest() // "@": not empty for an empty map
		}
	}
	st.Put(keyDigests, dig)
}

// serveReads answers the Gets whose read index the member has applied.
func (n *Member) serveReads() {
	n.reads = slices.DeleteFunc(n.reads, func(r read) bool {
		if r.Index == 0 || r.Index > n.applied {
			return false
		}
		n.answers = append(n.answers, Answer{Key: r.Key, Value: n.kv[r.Key], Index: r.Index})
		return true
	})
}

// roleChange arms the timers of the member's new role: a leader ticks
// (heartbeats), the others may campaign.
func (n *Member) roleChange(ctx *record.Context, leader bool) {
	if leader == n.leader {
		return
	}
	n.leader = leader
	if leader {
		ctx.CancelTimer(timerCampaign)
		ctx.SetTimer(timerTick, Tick{})
	} else {
		ctx.CancelTimer(timerTick)
		ctx.SetTimer(timerCampaign, Campaign{})
	}
}

// Answers returns the Gets the member answered in this incarnation.
func (n *Member) Answers() []Answer { return slices.Clone(n.answers) }

// Map returns a copy of the member's map and its applied index.
func (n *Member) Map() (KV, uint64) { return maps.Clone(n.kv), n.applied }

// Snapshot shows the member in demi show.
func (n *Member) Snapshot() any {
	if n.rn == nil {
		return nil
	}
	s := n.rn.BasicStatus()
	return map[string]any{
		"state": s.RaftState.String(), "term": s.HardState.GetTerm(), "vote": s.HardState.GetVote(),
		"commit": s.HardState.GetCommit(), "applied": n.applied, "kv": n.kv.Digest(),
		"reads": len(n.reads), "answers": len(n.answers),
	}
}

// DeepCopy copies the member for a forked run (record.DeepCopier). A
// field-by-field copy is not enough on its own: raft keeps its tick
// function as a method value bound to itself, which record.CopyOnto binds
// to the copy.
func (n *Member) DeepCopy() any {
	c := &Member{}
	if err := record.CopyOnto(c, n); err != nil {
		panic(fmt.Sprintf("kvraft: member %s cannot be copied: %v", n.id, err))
	}
	return c
}

var _ record.DeepCopier = (*Member)(nil)

// settle sets raft's randomized election timeout, which raft draws from
// crypto/rand at every change of term or role, to electionTick. The draw
// decides nothing here (no election timeout is ever reached), but it is
// part of the member's state, and two runs of one schedule must leave
// equal states for demi's searches to recognise them.
func settle(rn *raft.RawNode) {
	if rn == nil {
		return
	}
	if timeoutPath == nil {
		panic("kvraft: raft's randomized election timeout not found")
	}
	r := reflect.ValueOf(rn).Elem().FieldByIndex(timeoutPath[:1])
	if r.IsNil() {
		return
	}
	f := r.Elem().FieldByIndex(timeoutPath[1:])
	*(*int)(unsafe.Pointer(f.UnsafeAddr())) = electionTick
}

// timeoutPath is the field path RawNode.raft, raft.randomizedElectionTimeout.
var timeoutPath = func() []int {
	rf, ok := reflect.TypeFor[raft.RawNode]().FieldByName("raft")
	if !ok || rf.Type.Kind() != reflect.Pointer {
		return nil
	}
	tf, ok := rf.Type.Elem().FieldByName("randomizedElectionTimeout")
	if !ok || tf.Type.Kind() != reflect.Int || len(tf.Index) != 1 {
		return nil
	}
	return []int{rf.Index[0], tf.Index[0]}
}()

// quiet is raft's logger: silent, except that fatal errors panic.
type quiet struct{}

func (quiet) Debug(...any)            {}
func (quiet) Debugf(string, ...any)   {}
func (quiet) Error(...any)            {}
func (quiet) Errorf(string, ...any)   {}
func (quiet) Info(...any)             {}
func (quiet) Infof(string, ...any)    {}
func (quiet) Warning(...any)          {}
func (quiet) Warningf(string, ...any) {}
func (quiet) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (quiet) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
