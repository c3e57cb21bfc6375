// Package raft is demi's first real workload: a Raft cluster written as
// demi actors in the style of akka-raft, the system of the DEMi paper's
// case studies, with each bug those case studies found or reproduced
// available as a switch.
//
// # The protocol
//
// Each member is a Node actor. Members learn their cluster from an external
// Bootstrap message (its member list can be shrunk by minimization), then
// run Raft: an election timer (a timer message with key "election") makes a
// follower a candidate in the next term; a candidate sends RequestVote to
// the others, resends it to those that have not voted on its "retry" timer,
// and becomes leader on a majority of Votes. A leader replicates its log
// with AppendEntries on every client command and on its "heartbeat" timer,
// advances its commit index when a majority stores an entry of its term,
// and followers learn the commit index from it. Clients send ClientCommand
// as external messages to any member; followers forward them to the leader
// they know. Term, vote and log live in stable storage, so a crash-restart
// keeps them and loses the rest.
//
// # Invariants
//
// After every delivery demi checks Raft's safety properties (Figure 3 of
// the Raft paper): Election Safety, Log Matching, Leader Completeness and
// State Machine Safety. A violation's fingerprint is the invariant's name
// and the members involved, e.g. "ElectionSafety(raft-1,raft-3)" or
// "LeaderCompleteness(raft-2)", never terms or indices, so a shorter
// execution that breaks the same property between the same members counts
// as the same bug. An assertion that fails in a handler is a violation too
// (fingerprint "panic: assertion failed: ...").
//
// # Bug switches
//
// Each switch turns on one bug of the DEMi case studies and changes only
// its code path:
//
//   - raft-45: a candidate counts a repeated vote from the same member again.
//   - raft-46: a candidate counts votes from an earlier term.
//   - raft-56: a candidate that steps down forgets whom it voted for.
//   - raft-58a: a new leader initializes nextIndex and matchIndex through a
//     message to itself; client commands handled before it use stale values.
//   - raft-58b: the log is 0-indexed, so a follower cannot check the
//     AppendEntries for the leader's second entry against its first.
//   - raft-42: the commit index is the most common matchIndex, not the one
//     a majority has reached.
//   - raft-66: a follower replaces its log suffix with the entries of any
//     AppendEntries, so a delayed, shorter one truncates it (this needs the
//     unordered network, which the switch turns on).
//
// Three more switches are textbook Raft mistakes rather than case-study
// bugs (HardBugNames), in the hard-bug set of the time-to-bug study
// (docs/evaluation.md): each needs a crash-restart at the right moment,
// which the random walk with default flags never injects. They belong to
// the system raft-hard (HardSystem), this system with those switches
// added, so that raft's options and its shipped traces stay as they are:
//
//   - raft-vote-volatile: the vote is not kept in stable storage, so a
//     member that crashes and restarts can vote twice in one term.
//   - raft-log-volatile: a follower keeps only committed entries in stable
//     storage but acknowledges the others, so a crash can take an entry
//     that a majority acknowledged out of that majority.
//   - raft-term-volatile: the term is not kept in stable storage, so a
//     member that restarts forgets it and, with it, whom it voted for.
package raft

import (
	"fmt"
	"math/rand/v2"

	"github.com/demi-project/demi/record"
)

// The bug switches.
const (
	Bug45  = "raft-45"
	Bug46  = "raft-46"
	Bug56  = "raft-56"
	Bug58a = "raft-58a"
	Bug58b = "raft-58b"
	Bug42  = "raft-42"
	Bug66  = "raft-66"

	BugVoteVolatile = "raft-vote-volatile"
	BugLogVolatile  = "raft-log-volatile"
	BugTermVolatile = "raft-term-volatile"
)

// BugNames returns the bug switches in the order of the paper's Table 1.
func BugNames() []string { return []string{Bug45, Bug46, Bug56, Bug58a, Bug58b, Bug42, Bug66} }

// HardBugNames returns the switches of textbook mistakes that the hard-bug
// set of the time-to-bug study uses (see the package documentation); they
// have no shipped traces.
func HardBugNames() []string { return []string{BugVoteVolatile, BugLogVolatile, BugTermVolatile} }

// Option names other than the bug switches.
const (
	OptMembers         = "members"
	OptUnordered       = "unordered"
	OptClientWeight    = "client-weight"
	OptRestartWeight   = "restart-weight"
	OptKillWeight      = "kill-weight"
	OptPartitionWeight = "partition-weight"
)

// Bounds of the options (see record.OptionSpec): every run of n members
// keeps n² links, so the cluster size is capped well below what would
// exhaust memory; weights are relative, so 1000 is plenty.
const (
	MaxMembers = 64
	MaxWeight  = 1000
)

// Members returns the actor IDs raft-1 … raft-n.
func Members(o record.Options) []record.ActorID {
	n := o.Int(OptMembers)
	if n < 1 {
		n = 1
	}
	ids := make([]record.ActorID, n)
	for i := range ids {
		ids[i] = record.ActorID(fmt.Sprintf("raft-%d", i+1))
	}
	return ids
}

// Setup starts every member and then sends each a Bootstrap listing all of
// them.
func Setup(o record.Options) []record.Event {
	ms := Members(o)
	var evs []record.Event
	for _, id := range ms {
		evs = append(evs, record.StartEvent(id))
	}
	for _, id := range ms {
		evs = append(evs, record.SendEvent(id, Bootstrap{Members: append([]record.ActorID(nil), ms...)}))
	}
	return evs
}

// System returns the Raft system definition.
func System() *record.System {
	opts := []record.OptionSpec{
		{Name: OptMembers, Default: "4", Usage: "number of cluster members", Min: 1, Max: MaxMembers},
		{Name: OptUnordered, Default: "false", Usage: "unordered (UDP-like) network instead of per-pair FIFO"},
		{Name: OptClientWeight, Default: "30", Usage: "fuzzing weight of client commands", Min: 0, Max: MaxWeight},
		{Name: OptRestartWeight, Default: "0", Usage: "fuzzing weight of crash-restarts", Min: 0, Max: MaxWeight},
		{Name: OptKillWeight, Default: "0", Usage: "fuzzing weight of kills (or starts of killed members)", Min: 0, Max: MaxWeight},
		{Name: OptPartitionWeight, Default: "0", Usage: "fuzzing weight of partitions and heals between two members", Min: 0, Max: MaxWeight},
	}
	docs := map[string]string{
		Bug45:  "a candidate counts a duplicate vote from the same follower in the same term",
		Bug46:  "votes from an earlier term are not ignored",
		Bug56:  "a candidate that steps down forgets whom it voted for in this term",
		Bug58a: "a new leader initializes nextIndex/matchIndex through a message to itself; queued client commands run first",
		Bug58b: "0-indexed log: prevLogIndex is ambiguous and followers cannot reject a lagging leader",
		Bug42:  "the commit index is the mode of matchIndex, not the N/2+1'st value",
		Bug66:  "a delayed AppendEntries with fewer entries truncates the follower's log (unordered network)",
	}
	for _, b := range BugNames() {
		opts = append(opts, record.OptionSpec{Name: b, Default: "false", Usage: docs[b], Bug: true})
	}
	return &record.System{
		Name:    "raft",
		Doc:     "Raft in the style of akka-raft, with the DEMi case-study bugs",
		Options: opts,
		Members: Members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return newNode(id, o)
		},
		Messages:  messages(),
		Invariant: invariant,
		// An admissible bound on the events left to a violation, for
		// the optimum search (lowerbound.go).
		LowerBound: lowerBound,
		// Members are interchangeable when the initial configuration is
		// (symmetry.go).
		Symmetry: symmetry(),
		Network: func(o record.Options) record.Semantics {
			if o.Bool(OptUnordered) || o.Bool(Bug66) {
				return record.Unordered
			}
			return record.FIFO
		},
		Setup:     Setup,
		Externals: []record.Generator{{Name: "raft-external", Weight: 1, Make: makeExternal}},
		Swarm:     swarm(),
		// Coverage-guided fuzzing's bounded abstract state (abstract.go).
		Abstract: abstractState,
		Conditions: map[string]func(record.View) bool{
			"leader-elected": func(v record.View) bool {
				for _, n := range running(v) {
					if n.role == Leader {
						return true
					}
				}
				return false
			},
		},
	}
}

// swarm is what a swarm-mode fuzz run of Raft draws (record.Swarm): the
// weights of client commands, crash-restarts, kills and partitions, each
// kind left out of some runs, the number of external events and their
// rate, and the timer probability. Client commands are left out of half
// the runs, as swarm testing would: they suppress bugs such as
// raft-vote-volatile, which only runs without them found (see
// docs/fuzz-modes.md). The timer range is for the default four members
// and scales with the cluster size (record.SwarmSpec.TimerMembers): a
// round of messages takes twice the deliveries with twice the members.
// The pace (timer probability, number and rate of external events) is
// drawn through a workload intensity (record.SwarmSpec.Intensity): a run
// with many client commands at a high rate tends to have few timeouts,
// so that more of its runs have many commands per election, which a
// leader's log needs to diverge from its followers' (raft-58a with nine
// members), while each draw still covers its whole range. A quarter of
// the runs, mostly the intense ones, sustain their workload to the end of
// the run (record.SwarmSpec.Sustain): without, 94 % of the runs spend
// their external events before they end (in the median, after 55 % of
// their deliveries), and raft-58a with nine members, which needs many
// commands over several elections, fails twice as often. Not half: a
// sustained client workload suppresses raft-46 (its sustained runs with
// client commands fail half as often as the same runs unsustained), which
// fails 10 % less often with half the runs sustained and 3 % less with a
// quarter (docs/fuzz-modes.md).
func swarm() *record.SwarmSpec {
	return &record.SwarmSpec{
		Options: []record.SwarmOption{
			{Name: OptClientWeight, Off: 0.5, Min: 10, Max: 60},
			{Name: OptRestartWeight, Off: 0.4, Min: 1, Max: 4},
			{Name: OptKillWeight, Off: 0.95, Min: 1, Max: 3},
			{Name: OptPartitionWeight, Off: 0.7, Min: 1, Max: 5},
		},
		TimerProb:    [2]float64{0.02, 0.3},
		TimerMembers: 4, // the default cluster size
		Externals:    [2]int{100, 400},
		ExternalProb: [2]float64{0.05, 0.3},
		Intensity:    0.8,
		Sustain:      0.25,
	}
}

// HardSystem returns raft-hard: the Raft system with the switches of
// HardBugNames besides raft's own.
func HardSystem() *record.System {
	sys := System()
	sys.Name = "raft-hard"
	sys.Doc = "Raft with three textbook mistakes that need a crash-restart (the hard-bug set of the time-to-bug study)"
	docs := map[string]string{
		BugVoteVolatile: "the vote is not kept in stable storage: after a restart a member can vote again in the same term",
		BugLogVolatile:  "a follower keeps only committed entries in stable storage, yet acknowledges the others",
		BugTermVolatile: "the term is not kept in stable storage: a restarted member forgets it and its vote",
	}
	for _, b := range HardBugNames() {
		sys.Options = append(sys.Options, record.OptionSpec{Name: b, Default: "false", Usage: docs[b], Bug: true})
	}
	return sys
}

// makeExternal draws one external event, its kind by the weight options:
// a client command to a random member, a crash-restart, a kill (or the start
// of a killed member), or a partition (or heal) between two members.
func makeExternal(r *rand.Rand, v record.View) (record.Event, bool) {
	o := v.Options()
	w := [4]int{
		max(0, o.Int(OptClientWeight)), max(0, o.Int(OptRestartWeight)),
		max(0, o.Int(OptKillWeight)), max(0, o.Int(OptPartitionWeight)),
	}
	total := w[0] + w[1] + w[2] + w[3]
	if total == 0 {
		return record.Event{}, false
	}
	ms := v.Members()
	pick := func() record.ActorID { return ms[r.IntN(len(ms))] }
	x := r.IntN(total)
	switch {
	case x < w[0]:
		return record.SendEvent(pick(), ClientCommand{Cmd: 1 + r.IntN(1<<20)}), true
	case x < w[0]+w[1]:
		return record.RestartEvent(pick()), true
	case x < w[0]+w[1]+w[2]:
		id := pick()
		if v.Running(id) {
			return record.KillEvent(id), true
		}
		return record.StartEvent(id), true
	default:
		a, b := pick(), pick()
		if a == b {
			return record.Event{}, false
		}
		one, other := []record.ActorID{a}, []record.ActorID{b}
		if v.Partitioned(a, b) {
			return record.HealEvent(one, other), true
		}
		return record.PartitionEvent(one, other), true
	}
}
