package etcdraft

import (
	"slices"
	"strings"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// lowerBound is the system's admissible bound (record.System.LowerBound)
// on what a run still spends to show a violation: of Linearizability
// (readsBound), or raft's panic in loadState (restartBound); the other
// violations get 0.
func lowerBound(g record.Goal) int {
	switch {
	case g.Want == nil:
		return 0
	case strings.HasPrefix(g.Want.Fingerprint, kvapp.Linearizability+"("):
		return readsBound(g)
	case strings.HasPrefix(g.Want.Fingerprint, "panic: ") && strings.HasSuffix(g.Want.Fingerprint, "@ raft.(*raft).loadState"):
		return restartBound(g)
	}
	return 0
}

// restartBound bounds what raft's panic in loadState still needs: raft
// checks the HardState it reads back against the log when a member starts
// (Member.Start, on a Start or a Restart), and panics when the commit index
// is outside [snapshot index, last index] of what stable storage holds.
// Call a member's stored state bad when it is so. A member that panicked
// starting (no RawNode) shows the panic already: 0. Otherwise the panic
// needs a member v whose stored state is bad and a start of v still to
// come (an external event): none to come for any member makes it
// unreachable, which ends a search from a cut at once.
//
// When v's stored state is not bad yet, more is needed (stepBound): with
// the apply-before-commit bug, the send-before-persist bug, or a single
// member, this bound does not say what (0 more: apply-before-commit's
// compaction stores a snapshot beyond the commit index, which needs no
// other member's help; with send-before-persist a leader's followers can
// ack entries it has not stored, so its own commit index can get ahead of
// its stored log). Counting the
// externals, v needs one start when its stored state is bad or it runs,
// two when it does not run and its state is not bad yet (one to run, then
// the restart that panics).
func restartBound(g record.Goal) int {
	v := g.View
	for _, id := range v.Members() {
		if m, ok := v.Actor(id).(*Member); ok && m.ms != nil && m.rn == nil {
			return 0
		}
	}
	ext := 0
	if g.CountExternals {
		ext = 1
	}
	if !slices.ContainsFunc(g.Future, isStart) {
		return record.Unreachable
	}
	members := v.Members()
	if len(members) < 2 || v.Options().Bool(BugApplyBeforeCommit) || v.Options().Bool(BugSendBeforePersist) {
		return ext
	}
	c := clusterFacts(g)
	best := record.Unreachable
	for i, id := range members {
		starts := startsOf(g.Future, id)
		if starts == 0 {
			continue
		}
		commit, bad := c.commit[i], c.bad[i]
		running := v.Running(id)
		switch {
		case bad:
			best = min(best, ext)
		case !running && starts >= 2:
			best = min(best, 2*ext+stepBound(g, c, id, commit, 0))
		case running:
			var mem uint64
			if m, ok := v.Actor(id).(*Member); ok && m.rn != nil {
				mem = m.rn.BasicStatus().HardState.GetCommit()
			}
			best = min(best, ext+stepBound(g, c, id, commit, mem))
		}
	}
	return best
}

// isStart reports whether e starts or restarts a member.
func isStart(e record.Event) bool { return e.Kind == record.Start || e.Kind == record.Restart }

// startsOf counts the starts and restarts of id among future (a search
// state's few external events to come: a scan allocates nothing, where this
// bound runs at every state).
func startsOf(future []record.Event, id record.ActorID) int {
	n := 0
	for _, e := range future {
		if isStart(e) && e.Actor == id {
			n++
		}
	}
	return n
}

// durableCommit returns the commit index of a member's stored HardState
// (1, the bootstrap's, before its first start) and whether a start would
// panic in loadState on its stored state.
func durableCommit(st getter) (commit uint64, bad bool) {
	s, ok := load(st)
	if !ok {
		return 1, false
	}
	first := s.snap.GetMetadata().GetIndex()
	commit = s.hs.GetCommit()
	return commit, commit < first || commit > first+uint64(len(s.ents))
}

// facts is what stepBound reads of the whole cluster.
type facts struct {
	leader    bool   // a running member leads
	candidate bool   // a running member campaigns (pre-vote included)
	granted   bool   // a granted VoteResp is in flight
	known     uint64 // the highest commit index any member holds or any message in flight carries
	// commit and bad are each member's durableCommit, in the order of
	// View.Members.
	commit []uint64
	bad    []bool
}

func clusterFacts(g record.Goal) facts {
	var c facts
	for _, id := range g.View.Members() {
		commit, bad := durableCommit(g.View.Storage(id))
		c.commit, c.bad = append(c.commit, commit), append(c.bad, bad)
		c.known = max(c.known, commit)
		m, ok := g.View.Actor(id).(*Member)
		if !ok || m.rn == nil {
			continue
		}
		s := m.rn.BasicStatus()
		c.known = max(c.known, s.HardState.GetCommit())
		switch s.RaftState {
		case raft.StateLeader:
			c.leader = true
		case raft.StateCandidate, raft.StatePreCandidate:
			c.candidate = true
		}
	}
	for _, p := range g.InFlight {
		rm := carried(p.Msg)
		if rm == nil {
			continue
		}
		c.known = max(c.known, carriedCommit(rm))
		if rm.GetType() == raftpb.MsgVoteResp && !rm.GetReject() {
			c.granted = true
		}
	}
	return c
}

// carriedCommit is the commit index a raft message can teach its receiver:
// an App's or a Heartbeat's commit, a Snap's snapshot index.
func carriedCommit(m *raftpb.Message) uint64 {
	return max(m.GetCommit(), m.GetSnapshot().GetMetadata().GetIndex())
}

// stepBound bounds the deliveries still needed before member v, whose
// stored state is not bad and whose stored commit index is h (mem: the
// commit index of its running raft, 0 if it does not run), has a bad
// stored state, in a cluster of two members or more, with
// apply-before-commit off.
//
// Stable storage changes only while a member handles a delivery (its
// first start writes a good state; a restart writes nothing that can be
// bad), so v needs one delivery (1). The member writes each Ready's
// snapshot, entries and HardState in the order raft made them (deferred
// writes too); only the HardState of a Ready can get ahead of that
// Ready's own entries (hardstate-before-entries) or snapshot
// (skip-snapshot-persist). So a bad state needs a Ready whose commit
// index exceeds the last index v had before it, which is at least h (the
// stored commit index never decreases, and a good state holds the entries
// up to it): one step raised v's commit index above h together with its
// log, and only a leader's App (entries and its commit) or Snap (a
// snapshot at most its commit index) does that. A leader's own commit
// never runs ahead of the entries it stored. So:
//
//   - nothing more if v's raft already has a commit index above h (its
//     HardState is still to be written) or a message in flight to v
//     carries one;
//   - else a leader must still send v such a message, while handling a
//     delivery (1);
//   - if no member holds a commit index above h and no message carries
//     one, a leader must still commit beyond h: it does so when an
//     AppResp acking an index above h reaches it (the same delivery as the
//     send above may be that one), sent by another member while handling
//     a delivery (1: a leader commits only with a quorum, two members or
//     more), unless such an AppResp is in flight already (0, and no more);
//   - a leader: if no member leads, an election still comes first: a
//     Campaign timer (1, unless a member campaigns already), a Vote
//     delivered to another member (1, unless a granted VoteResp is in
//     flight) and a VoteResp delivered back. The VoteResp's delivery may
//     be the send above when a commit index above h is known already (a
//     new leader sends App at once), and comes before the acked App's
//     delivery otherwise (1).
//
// Each part counts a delivery that happens at a different time from the
// others (each causes the next), so the parts add up.
func stepBound(g record.Goal, c facts, v record.ActorID, h, mem uint64) int {
	if mem > h {
		return 1
	}
	for _, p := range g.InFlight {
		if rm := carried(p.Msg); rm != nil && p.To == v && carriedCommit(rm) > h {
			return 1
		}
	}
	election := 0
	if !c.leader {
		election = 1 // the VoteResp
		if !c.candidate {
			election++
		}
		if !c.granted {
			election++
		}
	}
	if c.known > h {
		if election > 0 {
			election-- // its VoteResp may be the send
		}
		return 1 + 1 + election
	}
	for _, p := range g.InFlight {
		if rm := carried(p.Msg); rm != nil && rm.GetType() == raftpb.MsgAppResp && !rm.GetReject() && rm.GetIndex() > h {
			return 1 + 1
		}
	}
	return 1 + 1 + 1 + election
}

// readsBound bounds what a stale read still needs.
//
// A history with no write linearizes (every read returns the initial
// state, the first place in every key's write order) and so does one with
// no read, whatever the bug: the violation needs a client Put and a client
// Get. Each costs nothing once a member received it (a Put is in some
// member's history from its arrival on, a Get from its arrival in the
// member's reads in progress, then in its history), one delivery while it
// is in flight, and its send (an external event, with CountExternals) and
// its delivery while it is still to come from outside. None to come makes
// the violation unreachable: the exact searches then stop at once instead
// of walking every schedule of the elections (a search from a cut of a
// trace whose only later external event is its Put, left out).
//
// Per request the bound counts a different delivery (the Put's, the
// Get's), so the two parts add up.
func readsBound(g record.Goal) int {
	put, get := record.Unreachable, record.Unreachable
	for _, id := range g.View.Members() {
		if l := kvapp.Stored(g.View.Storage(id)); l.Reads > 0 {
			get = 0
			if len(l.Ops) > l.Reads {
				put = 0
			}
		} else if len(l.Ops) > 0 {
			put = 0
		}
		if m, ok := g.View.Actor(id).(*Member); ok && len(m.reads) > 0 {
			get = 0
		}
	}
	for _, p := range g.InFlight {
		switch p.Msg.(type) {
		case Put:
			put = min(put, 1)
		case Get:
			get = min(get, 1)
		}
	}
	ext := 1
	if g.CountExternals {
		ext = 2
	}
	for _, e := range g.Future {
		if e.Kind != record.Send {
			continue
		}
		switch e.Msg.(type) {
		case Put:
			put = min(put, ext)
		case Get:
			get = min(get, ext)
		}
	}
	return min(put+get, record.Unreachable)
}
