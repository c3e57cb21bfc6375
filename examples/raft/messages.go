package raft

import (
	"fmt"
	"slices"

	"github.com/demi-project/demi/record"
)

// Entry is one log entry: a client command and the term of the leader that
// appended it.
type Entry struct {
	Term int `msgpack:"term"`
	Cmd  int `msgpack:"cmd"`
}

func (e Entry) String() string { return fmt.Sprintf("%d:%d", e.Term, e.Cmd) }

// Bootstrap tells a member who the members of its cluster are. It is an
// external message, sent once to every member at the start of a run. Its
// member list can be shrunk one member at a time (record.Shrinkable).
type Bootstrap struct {
	Members []record.ActorID `msgpack:"members"`
}

// Components returns the number of members listed.
func (b Bootstrap) Components() int { return len(b.Members) }

// WithoutComponent returns a copy of b without member i.
func (b Bootstrap) WithoutComponent(i int) record.Message {
	if i < 0 || i >= len(b.Members) {
		return Bootstrap{Members: slices.Clone(b.Members)}
	}
	return Bootstrap{Members: slices.Delete(slices.Clone(b.Members), i, i+1)}
}

// ClientCommand is a command from a client (an external message). A
// follower that knows the leader forwards it there (Hops counts the
// forwards); the leader appends it to its log.
type ClientCommand struct {
	Cmd  int `msgpack:"cmd"`
	Hops int `msgpack:"hops,omitempty"`
}

// RequestVote asks for a member's vote in Term.
type RequestVote struct {
	Term         int            `msgpack:"term"`
	Candidate    record.ActorID `msgpack:"candidate"`
	LastLogIndex int            `msgpack:"lastLogIndex"`
	LastLogTerm  int            `msgpack:"lastLogTerm"`
}

// Vote answers a RequestVote: Granted says whether the voter voted for the
// candidate in Term (the voter's current term when it answered).
type Vote struct {
	Term    int  `msgpack:"term"`
	Granted bool `msgpack:"granted"`
}

// AppendEntries replicates the leader's log from PrevLogIndex+1 on (and is
// the heartbeat when Entries is empty).
type AppendEntries struct {
	Term         int            `msgpack:"term"`
	Leader       record.ActorID `msgpack:"leader"`
	PrevLogIndex int            `msgpack:"prevLogIndex"`
	PrevLogTerm  int            `msgpack:"prevLogTerm"`
	Entries      []Entry        `msgpack:"entries"`
	LeaderCommit int            `msgpack:"leaderCommit"`
}

// AppendEntriesResponse answers an AppendEntries. On success MatchIndex is
// the index of the last entry the follower now shares with the leader; on
// failure it is a hint: the last index the leader may try next.
type AppendEntriesResponse struct {
	Term       int  `msgpack:"term"`
	Success    bool `msgpack:"success"`
	MatchIndex int  `msgpack:"matchIndex"`
}

// ElectionTimeout is the election timer (key "election"). When it fires, a
// follower or candidate starts an election in the next term.
type ElectionTimeout struct{}

// Heartbeat is the leader's heartbeat timer (key "heartbeat").
type Heartbeat struct {
	Term int `msgpack:"term"`
}

// RetryVotes is a candidate's timer (key "retry") to send its RequestVote
// again to the members that have not voted for it yet, in case a message
// was lost.
type RetryVotes struct {
	Term int `msgpack:"term"`
}

// InitLeader is the message a new leader sends itself to initialize
// nextIndex and matchIndex; it exists only with the raft-58a bug (the
// correct leader initializes them at once).
type InitLeader struct {
	Term int `msgpack:"term"`
}

// The message kinds, in the order they occur within a term; Round uses them
// as the phase of a message.
const (
	phaseElection = "election"
	phaseVote     = "vote"
	phaseAppend   = "append"
	phaseAck      = "ack"
	phaseLeader   = "leader"
)

// LogicalClock returns the term (record.Clocked).
func (m RequestVote) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m Vote) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m AppendEntries) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m AppendEntriesResponse) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m Heartbeat) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m RetryVotes) LogicalClock() int { return m.Term }

// LogicalClock returns the term (record.Clocked).
func (m InitLeader) LogicalClock() int { return m.Term }

// AdvancesClock reports that an election timeout starts a new term
// (record.ClockAdvancer).
func (ElectionTimeout) AdvancesClock() bool { return true }

// Round returns the term and the message kind (record.Rounded).
func (m RequestVote) Round() (int, string) { return m.Term, phaseElection }

// Round returns the term and the message kind (record.Rounded).
func (m Vote) Round() (int, string) { return m.Term, phaseVote }

// Round returns the term and the message kind (record.Rounded).
func (m AppendEntries) Round() (int, string) { return m.Term, phaseAppend }

// Round returns the term and the message kind (record.Rounded).
func (m AppendEntriesResponse) Round() (int, string) { return m.Term, phaseAck }

// Round returns the term and the message kind (record.Rounded).
func (m InitLeader) Round() (int, string) { return m.Term, phaseLeader }

func (m RequestVote) String() string {
	return fmt.Sprintf("RequestVote{t%d %s last=%d/t%d}", m.Term, m.Candidate, m.LastLogIndex, m.LastLogTerm)
}

func (m Vote) String() string {
	if m.Granted {
		return fmt.Sprintf("Vote{t%d granted}", m.Term)
	}
	return fmt.Sprintf("Vote{t%d refused}", m.Term)
}

func (m AppendEntries) String() string {
	return fmt.Sprintf("AppendEntries{t%d %s prev=%d/t%d entries=%v commit=%d}", m.Term, m.Leader, m.PrevLogIndex, m.PrevLogTerm, m.Entries, m.LeaderCommit)
}

func (m AppendEntriesResponse) String() string {
	if m.Success {
		return fmt.Sprintf("AppendEntriesResponse{t%d ok match=%d}", m.Term, m.MatchIndex)
	}
	return fmt.Sprintf("AppendEntriesResponse{t%d reject hint=%d}", m.Term, m.MatchIndex)
}

// messages lists one value of every message type, for record.System.
func messages() []record.Message {
	return []record.Message{
		Bootstrap{}, ClientCommand{}, RequestVote{}, Vote{}, AppendEntries{},
		AppendEntriesResponse{}, ElectionTimeout{}, Heartbeat{}, RetryVotes{}, InitLeader{},
	}
}
