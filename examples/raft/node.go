package raft

import (
	"slices"
	"sort"

	"github.com/demi-project/demi/record"
)

// Role is a member's role in its current term.
type Role uint8

// The three roles of Raft.
const (
	Follower Role = iota
	Candidate
	Leader
)

func (r Role) String() string {
	switch r {
	case Candidate:
		return "candidate"
	case Leader:
		return "leader"
	}
	return "follower"
}

// Committed is an entry a member knows to be committed, with the member's
// term when it learned so (ghost state, kept only for the invariants).
type Committed struct {
	Entry Entry
	At    int
}

// bugs holds the bug switches of a run.
type bugs struct {
	dupVotes, staleVotes, forgetVote, lateInit, zeroIndex, modeCommit, truncate bool
	// The hard-bug set (HardBugNames).
	voteVolatile, logVolatile, termVolatile bool
}

func bugsOf(o record.Options) bugs {
	return bugs{
		dupVotes:   o.Bool(Bug45),
		staleVotes: o.Bool(Bug46),
		forgetVote: o.Bool(Bug56),
		lateInit:   o.Bool(Bug58a),
		zeroIndex:  o.Bool(Bug58b),
		modeCommit: o.Bool(Bug42),
		truncate:   o.Bool(Bug66),

		voteVolatile: o.Bool(BugVoteVolatile),
		logVolatile:  o.Bool(BugLogVolatile),
		termVolatile: o.Bool(BugTermVolatile),
	}
}

// persistent is what a member keeps in stable storage.
type persistent struct {
	Term     int
	VotedFor record.ActorID
	Log      []Entry
	Members  []record.ActorID
	LedTerms []int // ghost: the terms this member was leader of
}

const storageKey = "raft"

// Node is one Raft member.
type Node struct {
	id   record.ActorID
	bugs bugs

	// Persistent state (mirrored in stable storage).
	members  []record.ActorID // nil until bootstrapped
	term     int
	votedFor record.ActorID
	log      []Entry // log[i-1] is the entry at index i
	ledTerms []int

	// Volatile state.
	role        Role
	leader      record.ActorID
	votes       []bool // per member: granted its vote in this election
	voteCount   int
	commitIndex int
	committed   []Committed
	nextIndex   []int
	matchIndex  []int
	initialized bool // leader: nextIndex/matchIndex set up for this term
}

func newNode(id record.ActorID, o record.Options) *Node {
	return &Node{id: id, bugs: bugsOf(o)}
}

// ID returns the member's actor ID.
func (n *Node) ID() record.ActorID { return n.id }

// Term returns the member's current term.
func (n *Node) Term() int { return n.term }

// Role returns the member's role.
func (n *Node) Role() Role { return n.role }

// Log returns a copy of the member's log.
func (n *Node) Log() []Entry { return slices.Clone(n.log) }

// CommitIndex returns the member's commit index.
func (n *Node) CommitIndex() int { return n.commitIndex }

// Bootstrapped reports whether the member knows its cluster.
func (n *Node) Bootstrapped() bool { return n.members != nil }

// Snapshot returns a copy of the member's state for display.
// A candidate, and the leader it became, also show the election's tally:
// votes is the count it holds, voters the members whose vote it counted.
// The two disagree when a vote was counted twice (raft-45).
func (n *Node) Snapshot() any {
	s := map[string]any{
		"role": n.role.String(), "term": n.term, "votedFor": string(n.votedFor),
		"leader": string(n.leader), "log": slices.Clone(n.log), "commitIndex": n.commitIndex,
		"nextIndex": slices.Clone(n.nextIndex), "matchIndex": slices.Clone(n.matchIndex),
		"members": slices.Clone(n.members), "ledTerms": slices.Clone(n.ledTerms),
	}
	if n.role == Candidate || n.role == Leader {
		voters := []string{}
		for i, granted := range n.votes {
			if granted {
				voters = append(voters, string(n.members[i]))
			}
		}
		s["votes"], s["voters"] = n.voteCount, voters
	}
	return s
}

// Start restores the persistent state and, if the member was bootstrapped
// before a crash, resumes as a follower.
func (n *Node) Start(ctx *record.Context) {
	v, ok := ctx.Storage().Get(storageKey)
	if !ok {
		return
	}
	p := v.(persistent)
	n.term, n.votedFor = p.Term, p.VotedFor
	n.log = slices.Clone(p.Log)
	n.ledTerms = slices.Clone(p.LedTerms)
	if p.Members != nil {
		n.setMembers(p.Members)
		ctx.SetTimer("election", ElectionTimeout{})
	}
}

func (n *Node) persist(ctx *record.Context) {
	voted := n.votedFor
	if n.bugs.voteVolatile {
		voted = "" // raft-vote-volatile: the vote is not written
	}
	log := n.log
	if n.bugs.logVolatile && n.role != Leader {
		log = log[:min(n.commitIndex, len(log))] // raft-log-volatile: committed entries only
	}
	term := n.term
	if n.bugs.termVolatile {
		term, voted = 0, "" // raft-term-volatile: neither is written
	}
	// Put stores a copy (persistent.DeepCopy): the lists need no copy of
	// their own here.
	ctx.Storage().Put(storageKey, persistent{
		Term: term, VotedFor: voted, Log: log, Members: n.members, LedTerms: n.ledTerms,
	})
}

func (n *Node) setMembers(ms []record.ActorID) {
	n.members = slices.Clone(ms)
	if !slices.Contains(n.members, n.id) {
		n.members = append(n.members, n.id)
	}
	k := len(n.members)
	n.votes = make([]bool, k)
	n.nextIndex = make([]int, k)
	n.matchIndex = make([]int, k)
	for i := range n.nextIndex {
		n.nextIndex[i] = 1
	}
}

func (n *Node) index(id record.ActorID) int { return slices.Index(n.members, id) }

func (n *Node) majority() int { return len(n.members)/2 + 1 }

func (n *Node) lastIndex() int { return len(n.log) }

func (n *Node) termAt(i int) int {
	if i <= 0 || i > len(n.log) {
		return 0
	}
	return n.log[i-1].Term
}

// Receive handles one message or timer.
func (n *Node) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	if b, ok := msg.(Bootstrap); ok {
		if n.members == nil {
			n.setMembers(b.Members)
			n.persist(ctx)
			ctx.SetTimer("election", ElectionTimeout{})
		}
		return
	}
	if n.members == nil {
		return // not part of a cluster yet
	}
	wasCandidate := n.role == Candidate
	switch m := msg.(type) {
	case ElectionTimeout:
		if n.role != Leader {
			n.startElection(ctx)
		}
	case RetryVotes:
		if n.role == Candidate && m.Term == n.term {
			n.requestVotes(ctx, true)
			ctx.SetTimer("retry", RetryVotes{Term: n.term})
		}
	case RequestVote:
		n.onRequestVote(ctx, from, m)
	case Vote:
		n.onVote(ctx, from, m)
	case AppendEntries:
		n.onAppendEntries(ctx, from, m)
	case AppendEntriesResponse:
		n.onAppendEntriesResponse(ctx, from, m)
	case Heartbeat:
		if n.role == Leader && m.Term == n.term {
			n.broadcastAppend(ctx)
			ctx.SetTimer("heartbeat", Heartbeat{Term: n.term})
		}
	case InitLeader:
		if n.role == Leader && m.Term == n.term && !n.initialized {
			n.initLeader(ctx)
		}
	case ClientCommand:
		n.onClientCommand(ctx, m)
	}
	if n.bugs.forgetVote && wasCandidate && n.role == Follower && n.votedFor != "" {
		// raft-56: the candidate-to-follower transition does not carry
		// over whom the member voted for in this term.
		n.votedFor = ""
		n.persist(ctx)
	}
}

// observe steps down to follower in term t if t is newer than ours.
func (n *Node) observe(ctx *record.Context, t int) {
	if t <= n.term {
		return
	}
	n.term, n.votedFor = t, ""
	n.persist(ctx)
	n.becomeFollower(ctx)
}

func (n *Node) becomeFollower(ctx *record.Context) {
	if n.role == Leader {
		ctx.CancelTimer("heartbeat")
	}
	if n.role == Candidate {
		ctx.CancelTimer("retry")
	}
	if n.role != Follower {
		ctx.SetTimer("election", ElectionTimeout{})
	}
	n.role, n.leader = Follower, ""
}

func (n *Node) startElection(ctx *record.Context) {
	if n.role == Candidate {
		ctx.CancelTimer("retry")
	}
	n.term++
	n.votedFor = n.id
	n.role, n.leader = Candidate, ""
	n.persist(ctx)
	clear(n.votes)
	n.votes[n.index(n.id)] = true
	n.voteCount = 1
	ctx.SetTimer("election", ElectionTimeout{})
	ctx.SetTimer("retry", RetryVotes{Term: n.term})
	n.requestVotes(ctx, false)
	if n.voteCount >= n.majority() {
		n.becomeLeader(ctx)
	}
}

// requestVotes sends RequestVote to the other members (only to those that
// have not granted their vote yet, on a retry).
func (n *Node) requestVotes(ctx *record.Context, retry bool) {
	rv := RequestVote{Term: n.term, Candidate: n.id, LastLogIndex: n.lastIndex(), LastLogTerm: n.termAt(n.lastIndex())}
	for i, id := range n.members {
		if id == n.id || retry && n.votes[i] {
			continue
		}
		ctx.Send(id, rv)
	}
}

func (n *Node) onRequestVote(ctx *record.Context, from record.ActorID, m RequestVote) {
	n.observe(ctx, m.Term)
	upToDate := m.LastLogTerm > n.termAt(n.lastIndex()) ||
		m.LastLogTerm == n.termAt(n.lastIndex()) && m.LastLogIndex >= n.lastIndex()
	grant := m.Term == n.term && (n.votedFor == "" || n.votedFor == m.Candidate) && upToDate
	if grant {
		n.votedFor = m.Candidate
		n.persist(ctx)
		ctx.SetTimer("election", ElectionTimeout{})
	}
	ctx.Send(from, Vote{Term: n.term, Granted: grant})
}

func (n *Node) onVote(ctx *record.Context, from record.ActorID, m Vote) {
	if m.Term > n.term {
		n.observe(ctx, m.Term)
		return
	}
	if m.Term < n.term && !n.bugs.staleVotes {
		return // a vote from an earlier election
	}
	i := n.index(from)
	if n.role != Candidate || !m.Granted || i < 0 {
		return
	}
	if n.bugs.dupVotes {
		n.voteCount++ // raft-45: a repeated vote counts again
	} else if !n.votes[i] {
		n.voteCount++
	}
	n.votes[i] = true
	if n.voteCount >= n.majority() {
		n.becomeLeader(ctx)
	}
}

func (n *Node) becomeLeader(ctx *record.Context) {
	n.role, n.leader = Leader, n.id
	n.ledTerms = append(n.ledTerms, n.term)
	n.persist(ctx)
	ctx.CancelTimer("election")
	ctx.CancelTimer("retry")
	n.initialized = false
	if n.bugs.lateInit {
		// raft-58a: initialization is deferred to a message to itself;
		// messages already queued may be handled before it.
		ctx.Send(n.id, InitLeader{Term: n.term})
		return
	}
	n.initLeader(ctx)
}

func (n *Node) initLeader(ctx *record.Context) {
	for i := range n.members {
		n.nextIndex[i] = n.lastIndex() + 1
		n.matchIndex[i] = 0
	}
	n.initialized = true
	n.broadcastAppend(ctx)
	ctx.SetTimer("heartbeat", Heartbeat{Term: n.term})
}

func (n *Node) broadcastAppend(ctx *record.Context) {
	for i, id := range n.members {
		if id != n.id {
			n.sendAppend(ctx, i)
		}
	}
}

// sendAppend sends member i the entries from its nextIndex on, and then
// assumes they will arrive (nextIndex moves past them; a rejection moves it
// back).
func (n *Node) sendAppend(ctx *record.Context, i int) {
	prev := n.nextIndex[i] - 1
	assertf(prev >= 0 && prev <= n.lastIndex(), "leader %s has a nextIndex beyond its log", n.id)
	ctx.Send(n.members[i], AppendEntries{
		Term: n.term, Leader: n.id, PrevLogIndex: prev, PrevLogTerm: n.termAt(prev),
		Entries: slices.Clone(n.log[prev:]), LeaderCommit: n.commitIndex,
	})
	n.nextIndex[i] = n.lastIndex() + 1
}

func (n *Node) onClientCommand(ctx *record.Context, m ClientCommand) {
	switch {
	case n.role == Leader:
		n.log = append(n.log, Entry{Term: n.term, Cmd: m.Cmd})
		n.persist(ctx)
		n.broadcastAppend(ctx)
		n.maybeCommit(ctx)
	case n.role == Follower && n.leader != "" && m.Hops < len(n.members):
		ctx.Send(n.leader, ClientCommand{Cmd: m.Cmd, Hops: m.Hops + 1})
	}
}

func (n *Node) onAppendEntries(ctx *record.Context, from record.ActorID, m AppendEntries) {
	if m.Term < n.term {
		ctx.Send(from, AppendEntriesResponse{Term: n.term})
		return
	}
	n.observe(ctx, m.Term)
	if n.role == Leader {
		return // another leader in our own term: only a bug gets here
	}
	if n.role == Candidate {
		n.becomeFollower(ctx)
	}
	n.leader = m.Leader
	ctx.SetTimer("election", ElectionTimeout{})

	prev := m.PrevLogIndex
	ok := prev == 0 || prev <= n.lastIndex() && n.termAt(prev) == m.PrevLogTerm
	base := prev
	if n.bugs.zeroIndex && prev == 1 {
		// raft-58b: with 0-indexed logs, the AppendEntries carrying the
		// leader's second entry has the same prevLogIndex (0) as one for
		// an empty log, so the follower cannot check it.
		ok, base = true, min(prev, n.lastIndex())
	}
	if !ok {
		ctx.Send(from, AppendEntriesResponse{Term: n.term, MatchIndex: min(n.lastIndex(), prev-1)})
		return
	}
	if n.bugs.truncate {
		// raft-66: the follower replaces its log after base with the
		// entries, even when they are an older, shorter prefix.
		n.log = append(n.log[:base:base], m.Entries...)
	} else {
		for j, e := range m.Entries {
			idx := base + 1 + j
			if idx <= n.lastIndex() {
				if n.log[idx-1].Term == e.Term {
					continue
				}
				n.log = n.log[:idx-1]
			}
			n.log = append(n.log, e)
		}
	}
	n.persist(ctx)
	last := base + len(m.Entries)
	if m.LeaderCommit > n.commitIndex {
		n.advanceCommit(min(m.LeaderCommit, last))
	}
	ctx.Send(from, AppendEntriesResponse{Term: n.term, Success: true, MatchIndex: last})
}

func (n *Node) onAppendEntriesResponse(ctx *record.Context, from record.ActorID, m AppendEntriesResponse) {
	if m.Term > n.term {
		n.observe(ctx, m.Term)
		return
	}
	i := n.index(from)
	if n.role != Leader || m.Term != n.term || i < 0 {
		return
	}
	if m.Success {
		n.matchIndex[i] = max(n.matchIndex[i], m.MatchIndex)
		n.nextIndex[i] = max(n.nextIndex[i], n.matchIndex[i]+1)
		n.maybeCommit(ctx)
		return
	}
	n.nextIndex[i] = max(n.matchIndex[i]+1, min(m.MatchIndex+1, n.lastIndex()+1))
	n.sendAppend(ctx, i)
}

// maybeCommit advances the leader's commit index to the highest index
// stored on a majority, if that entry is from the current term.
func (n *Node) maybeCommit(ctx *record.Context) {
	vals := slices.Clone(n.matchIndex)
	vals[n.index(n.id)] = n.lastIndex()
	var idx int
	if n.bugs.modeCommit {
		idx = mode(vals) // raft-42: the most common value, not the quorum's
	} else {
		sort.Sort(sort.Reverse(sort.IntSlice(vals)))
		idx = vals[n.majority()-1]
	}
	assertf(idx <= n.lastIndex(), "leader %s has a matchIndex beyond its log", n.id)
	if idx > n.commitIndex && n.termAt(idx) == n.term {
		n.advanceCommit(idx)
	}
}

// mode returns the most common value, the highest one on ties.
func mode(vals []int) int {
	s := slices.Clone(vals)
	slices.Sort(s)
	best, bestN := 0, 0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i >= bestN {
			best, bestN = s[i], j-i
		}
		i = j
	}
	return best
}

func (n *Node) advanceCommit(to int) {
	to = min(to, n.lastIndex())
	for i := n.commitIndex + 1; i <= to; i++ {
		n.committed = append(n.committed, Committed{Entry: n.log[i-1], At: n.term})
	}
	if to > n.commitIndex {
		n.commitIndex = to
	}
}
