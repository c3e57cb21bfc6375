package etcdraft

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// electionTick is the RawNode's ElectionTick: so large that no number of
// ticks ever starts an election. Elections start only when demi fires a
// member's Campaign timer. The library draws each follower's randomized
// election timeout from crypto/rand, but the draw decides nothing when the
// timeout is never reached, so runs stay deterministic; the member sets it
// back to electionTick after every call into raft (settleTimeout), so that
// its state does not hold the draw either.
const electionTick = 1 << 20

// Timer keys.
const (
	timerCampaign = "campaign"
	timerTick     = "tick"
	timerRetry    = "read-retry"
)

// Timer durations with virtual time (option virtual-time), in ticks, as
// an etcd server configures its RawNode: a heartbeat every tick, and an
// election after electionTimeout to 2*electionTimeout-1 ticks without
// word from a leader (raft's randomized election timeout).
const (
	heartbeatTicks  = 1
	electionTimeout = 10
)

// bugs are the bug switches of one run.
type bugs struct {
	sendBeforePersist, applyBeforeCommit, skipSnapshotPersist, hardStateFirst, leaderLocalRead bool
}

// Member is one member of the cluster: a demi actor that holds a
// raft.RawNode and handles its Ready the way an application does.
type Member struct {
	id      record.ActorID
	rid     uint64 // raft ID: 1 … n
	n       int    // cluster size
	every   uint64 // entries applied between two snapshots (0: never)
	prevote bool
	retry   bool // read-retry: ask again for read indices not received
	timed   bool // virtual time: timers with durations (see armCampaign)
	bugs    bugs

	rn       *raft.RawNode
	ms       *raft.MemoryStorage // raft's view of the log: what the member wrote
	kv       kvapp.Store
	applied  uint64 // index of the last entry applied to kv
	snapshot uint64 // index of the last snapshot
	writes   uint64 // client writes applied since the last snapshot
	conf     *raftpb.ConfState
	leader   bool
	// deferred are stable-storage writes (and the sends that must follow
	// them) that a buggy member has not done yet; they happen when it next
	// handles something (as a background flush would), and are lost if it
	// crashes first. They are data, not closures, so that a member can be
	// copied (DeepCopy).
	deferred []pending
	// proposals and reads are the client requests in progress (client.go).
	proposals []proposal
	reads     []pendingRead
	log       raftLog // the log, as MemoryStorage holds it (refreshLog)
}

func newMember(id record.ActorID, o record.Options) *Member {
	rid, _ := strconv.ParseUint(string(id[len(idPrefix):]), 10, 64)
	return &Member{
		id: id, rid: rid, n: max(1, o.Int(OptMembers)), every: uint64(max(0, o.Int(OptSnapshotEvery))),
		prevote: o.Bool(OptPreVote), retry: o.Bool(OptReadRetry), timed: o.Bool(OptVirtualTime),
		bugs: bugs{
			sendBeforePersist:   o.Bool(BugSendBeforePersist),
			applyBeforeCommit:   o.Bool(BugApplyBeforeCommit),
			skipSnapshotPersist: o.Bool(BugSkipSnapshotPersist),
			hardStateFirst:      o.Bool(BugHardStateFirst),
			leaderLocalRead:     o.Bool(BugLeaderLocalRead),
		},
	}
}

// Start rebuilds the member from stable storage: on the first start it
// writes the initial state (a snapshot at index 1 naming all members as
// voters, the way an application bootstraps a cluster), on a restart it
// reads back the HardState, the snapshot and the log. The key-value store
// is volatile: it is restored from the snapshot, and raft hands the
// committed entries after it to the member again.
func (n *Member) Start(ctx *record.Context) {
	st := ctx.Storage()
	s, ok := load(st)
	if !ok {
		voters := make([]uint64, n.n)
		for i := range voters {
			voters[i] = uint64(i + 1)
		}
		s.snap = &raftpb.Snapshot{Data: kvapp.Store{}.Encode(), Metadata: &raftpb.SnapshotMetadata{
			Index: new(uint64(1)), Term: new(uint64(1)), ConfState: &raftpb.ConfState{Voters: voters}}}
		s.hs = &raftpb.HardState{Term: new(uint64(1)), Commit: new(uint64(1))}
		saveSnapshot(st, s.snap)
		saveHardState(st, s.hs)
	}
	n.ms = raft.NewMemoryStorage()
	must(n.ms.ApplySnapshot(s.snap))
	must(n.ms.Append(s.ents))
	must(n.ms.SetHardState(s.hs))
	n.kv = kvapp.Decode(s.snap.GetData())
	n.applied = s.snap.GetMetadata().GetIndex()
	n.snapshot = n.applied
	n.conf = s.snap.GetMetadata().GetConfState()
	rn, err := raft.NewRawNode(&raft.Config{
		ID: n.rid, ElectionTick: electionTick, HeartbeatTick: 1, Storage: n.ms, Applied: n.applied,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, PreVote: n.prevote, Logger: kvapp.Logger{},
	})
	must(err)
	n.rn = rn
	n.refreshLog()
	n.armCampaign(ctx)
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
	n.flush(ctx)
	switch m := msg.(type) {
	case Campaign:
		_ = n.rn.Campaign()
		if !n.leader {
			n.armCampaign(ctx)
		}
	case Tick:
		n.rn.Tick()
		if n.leader {
			n.armTick(ctx)
		}
	case Put:
		n.propose(ctx, m)
	case Get:
		n.read(ctx, m)
	case ReadRetry:
		n.retryReads(ctx)
	default:
		if rm := unwrap(msg); rm != nil {
			vote := n.rn.BasicStatus().HardState.GetVote()
			_ = n.rn.Step(rm)
			if n.timed && !n.leader && n.heard(rm, vote) {
				n.armCampaign(ctx)
			}
		}
	}
	n.ready(ctx)
}

// ready handles every pending Ready, in the order raft's documentation
// asks of an application: write the snapshot, the entries and the
// HardState to stable storage; then send the messages; then apply the
// snapshot and the committed entries to the state machine; then Advance.
// Each bug switch breaks one step of that contract.
func (n *Member) ready(ctx *record.Context) {
	defer settleTimeout(n.rn)
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if rd.SoftState != nil {
			n.roleChange(ctx, rd.SoftState.RaftState == raft.StateLeader)
		}
		if n.bugs.sendBeforePersist {
			// Bug: send first, write later (asynchronously): a crash in
			// between forgets a vote or entries others were told about.
			n.send(ctx, rd.Messages)
			n.later(persistReady(rd))
		} else {
			n.write(ctx, persistReady(rd))
		}
		n.mirror(rd)
		if !n.bugs.sendBeforePersist {
			n.send(ctx, rd.Messages)
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			n.kv = kvapp.Decode(rd.Snapshot.GetData())
			n.applied = rd.Snapshot.GetMetadata().GetIndex()
			n.snapshot = n.applied
			n.conf = rd.Snapshot.GetMetadata().GetConfState()
		}
		if n.bugs.applyBeforeCommit {
			// Bug: apply what was just appended, before it is committed.
			n.apply(ctx, rd.Entries, true)
		}
		n.apply(ctx, rd.CommittedEntries, false)
		n.readStates(rd.ReadStates)
		n.serveReads(ctx)
		n.rn.Advance(rd)
		for _, m := range rd.Messages {
			if m.GetType() == raftpb.MsgSnap {
				// The transport delivered (or dropped) the snapshot.
				n.rn.ReportSnapshot(m.GetTo(), raft.SnapshotFinish)
			}
		}
		n.compact(ctx)
	}
}

// persist writes one Ready's snapshot, entries and HardState (w, a
// pending write of kind writeReady).
func (n *Member) persist(st record.Storage, w pending) {
	if !raft.IsEmptySnap(w.snap) && !n.bugs.skipSnapshotPersist {
		saveSnapshot(st, w.snap)
	}
	if n.bugs.hardStateFirst && len(w.ents) > 0 {
		// Bug: the HardState and the entries are two separate writes, the
		// HardState first; the entries are written in the background.
		if !raft.IsEmptyHardState(w.hs) {
			saveHardState(st, w.hs)
		}
		n.later(pending{kind: writeEntries, ents: w.ents})
		return
	}
	saveEntries(st, w.ents)
	if !raft.IsEmptyHardState(w.hs) {
		saveHardState(st, w.hs)
	}
}

// mirror puts a Ready's writes into raft's MemoryStorage.
func (n *Member) mirror(rd raft.Ready) {
	snap := !raft.IsEmptySnap(rd.Snapshot)
	if snap {
		must(n.ms.ApplySnapshot(rd.Snapshot))
	}
	must(n.ms.Append(rd.Entries))
	if !raft.IsEmptyHardState(rd.HardState) {
		must(n.ms.SetHardState(rd.HardState))
	}
	switch {
	case snap:
		n.refreshLog()
	case len(rd.Entries) > 0:
		n.refreshLogFrom(rd.Entries[0].GetIndex())
	}
}

// refreshLog reads the log back from MemoryStorage after a change, for the
// LogMatching invariant (which runs after every event, more often than the
// log changes).
func (n *Member) refreshLog() {
	first, _ := n.ms.FirstIndex()
	last, _ := n.ms.LastIndex()
	n.log = raftLog{first: first}
	if last < first {
		return
	}
	if ents, err := n.ms.Entries(first, last+1, math.MaxUint64); err == nil {
		n.log.ents = ents
	}
}

// refreshLogFrom is refreshLog after MemoryStorage.Append of entries from
// index from on, when no snapshot was applied: Append keeps the entries
// before from as they are, so only the rest is read back. (Reading the
// whole log costs an encoded-size computation per entry, inside
// MemoryStorage.Entries, after every append.) It falls back to refreshLog
// when the log's start moved or from is not inside it.
func (n *Member) refreshLogFrom(from uint64) {
	first, _ := n.ms.FirstIndex()
	last, _ := n.ms.LastIndex()
	keep := from - n.log.first // the entries before from
	if first != n.log.first || from <= first || from > last || keep > uint64(len(n.log.ents)) {
		n.refreshLog()
		return
	}
	suffix, err := n.ms.Entries(from, last+1, math.MaxUint64)
	if err != nil {
		n.refreshLog()
		return
	}
	// A new array: the old one may be MemoryStorage's own.
	n.log.ents = append(n.log.ents[:keep:keep], suffix...)
}

// write does a stable-storage write now, or after the writes a buggy
// member has deferred (in order).
func (n *Member) write(ctx *record.Context, w pending) {
	if len(n.deferred) > 0 {
		n.later(w)
		return
	}
	n.do(ctx, w)
}

// later defers a write (or a send that must follow deferred writes) to the
// member's next handler, as a background write completes later.
func (n *Member) later(w pending) { n.deferred = append(n.deferred, w) }

// flush does what was deferred, in order.
func (n *Member) flush(ctx *record.Context) {
	ws := n.deferred
	n.deferred = nil
	for _, w := range ws {
		n.do(ctx, w)
	}
}

// send sends raft's messages, after the writes still deferred (unless the
// send-before-persist bug sends them first anyway).
func (n *Member) send(ctx *record.Context, msgs []*raftpb.Message) {
	if len(msgs) == 0 {
		return
	}
	if len(n.deferred) > 0 && !n.bugs.sendBeforePersist {
		n.later(pending{kind: sendMessages, msgs: msgs})
		return
	}
	for _, m := range msgs {
		ctx.Send(memberID(m.GetTo()), wrap(m))
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
		n.armCampaign(ctx)
		return
	}
	ctx.CancelTimer(timerCampaign)
	n.armTick(ctx)
	term := n.rn.BasicStatus().HardState.GetTerm()
	st := ctx.Storage()
	led := slices.Clone(ledTerms(st))
	if !slices.Contains(led, term) {
		st.Put(keyLed, append(led, term))
	}
}

// apply applies entries to the key-value store and records them (ghost
// state for StateMachineSafety). Entries at or below the applied index
// are skipped unless early is set (the apply-before-commit bug applies
// whatever it appends, again if a new leader overwrote it).
func (n *Member) apply(ctx *record.Context, ents []*raftpb.Entry, early bool) {
	var rec, data []string
	for _, e := range ents {
		if !early && e.GetIndex() <= n.applied {
			continue
		}
		if e.GetType() == raftpb.EntryNormal && len(e.GetData()) > 0 {
			n.kv.Apply(e.GetData())
			n.writes++
			n.completePut(ctx, e)
		}
		n.applied = max(n.applied, e.GetIndex())
		if rec == nil {
			st := ctx.Storage()
			rec, data = appliedLog(st), appliedData(st) // copies
		}
		i := int(e.GetIndex())
		for len(rec) <= i {
			rec, data = append(rec, ""), append(data, "")
		}
		if rec[i] == "" { // the first entry applied at an index stays
			rec[i] = appliedEntry(e)
			data[i] = string(e.GetData())
		}
	}
	if rec != nil {
		ctx.Storage().Put(keyApplied, rec)
		ctx.Storage().Put(keyAppliedData, data)
	}
}

// appliedEntry is how the applied log records an entry: its term and its
// data quoted, as in "t2 \"set k1 5\"".
func appliedEntry(e *raftpb.Entry) string {
	b := make([]byte, 0, 16+len(e.GetData()))
	b = append(b, 't')
	b = strconv.AppendUint(b, e.GetTerm(), 10)
	b = append(b, ' ')
	return string(strconv.AppendQuote(b, string(e.GetData())))
}

// compact takes a snapshot of the key-value store and drops the log
// entries it covers, every n.every applied client writes (as etcd's server
// does every --snapshot-count applied entries; the empty entries new
// leaders append do not count here, so that snapshots follow the clients'
// load rather than the number of elections): a follower that needs dropped
// entries gets the snapshot instead.
func (n *Member) compact(ctx *record.Context) {
	if n.every == 0 || n.writes < n.every || n.applied <= n.snapshot {
		return
	}
	snap, err := n.ms.CreateSnapshot(n.applied, n.conf, n.kv.Encode())
	if err != nil {
		return
	}
	n.write(ctx, pending{kind: writeSnapshot, snap: snap})
	must(n.ms.Compact(n.applied))
	n.refreshLog()
	n.snapshot = n.applied
	n.writes = 0
}

// Snapshot shows the member's state in demi show.
func (n *Member) Snapshot() any {
	if n.rn == nil {
		return nil
	}
	s := n.rn.BasicStatus()
	last, _ := n.ms.LastIndex()
	first, _ := n.ms.FirstIndex()
	return map[string]any{
		"state": s.RaftState.String(), "term": s.HardState.GetTerm(), "vote": s.HardState.GetVote(),
		"commit": s.HardState.GetCommit(), "lead": s.Lead, "applied": n.applied,
		"log": fmt.Sprintf("[%d, %d]", first, last), "snapshot": n.snapshot, "kv": map[string]string(maps.Clone(n.kv)),
	}
}

// armCampaign (re)arms the campaign timer. With virtual time its deadline
// is a randomized election timeout away, drawn from the member's own
// random source, so arming it again (on word from the leader, see heard)
// puts the next election off, as raft's electionElapsed reset does.
// Without, the timer fires whenever demi's schedule says.
func (n *Member) armCampaign(ctx *record.Context) {
	if !n.timed {
		ctx.SetTimer(timerCampaign, Campaign{})
		return
	}
	d := electionTimeout + ctx.Rand().IntN(electionTimeout)
	ctx.SetTimerAfter(timerCampaign, record.VirtualTime(d), Campaign{})
}

// armTick arms the leader's heartbeat timer: every heartbeatTicks with
// virtual time.
func (n *Member) armTick(ctx *record.Context) {
	if !n.timed {
		ctx.SetTimer(timerTick, Tick{})
		return
	}
	ctx.SetTimerAfter(timerTick, heartbeatTicks, Tick{})
}

// heard reports whether raft, stepping m, reset its election timer: m is
// an append, a heartbeat or a snapshot of the leader the member now
// follows, or the member granted m's sender its vote (vote was its vote
// before the step).
func (n *Member) heard(m *raftpb.Message, vote uint64) bool {
	st := n.rn.BasicStatus()
	switch m.GetType() {
	case raftpb.MsgApp, raftpb.MsgHeartbeat, raftpb.MsgSnap:
		return st.Lead == m.GetFrom() && m.GetTerm() == st.HardState.GetTerm()
	case raftpb.MsgVote:
		return vote != m.GetFrom() && st.HardState.GetVote() == m.GetFrom()
	}
	return false
}
