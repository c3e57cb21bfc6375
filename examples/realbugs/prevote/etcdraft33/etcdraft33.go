// Package etcdraft33 puts the elections of etcd's Raft library as it
// shipped in etcd v3.3 (github.com/coreos/etcd/raft), unmodified, under
// demi, with a bounded-liveness property: after the last fault, within N
// deliveries, the members that can talk to a majority have a leader that
// a majority acknowledges. Built in examples/realbugs/prevote, the library
// is v3.3.13, the last release with the PreVote and CheckQuorum liveness
// bug (etcd-io/etcd#8334, fixed in v3.3.15); examples/realbugs/prevote-fixed
// builds this same package against v3.3.15 (docs/real-bugs.md).
//
// # The adapter
//
// It is examples/etcdraft's (docs/etcdraft.md) cut down to what elections
// need, on the v3.3 API (gogo protobuf values, NewRawNode(config, peers)).
// Each member is a demi actor that holds a raft.RawNode and handles its
// Ready in the documented order (write entries and HardState to demi's
// stable storage, send the messages, Advance), so a crash-restart loses
// exactly what a real process loses. Raft messages travel as demi
// messages, one Go type per kind (PreVote, Vote, App, …). Clients propose
// data (Propose, an external message) so that logs grow and a vote
// depends on whose log is up to date; there is no state machine.
//
// # Determinism and time
//
// Ticks never start an election: ElectionTick is 2^20 ticks, never
// reached, so a follower's CheckQuorum lease (it ignores votes while it has
// heard from a leader within an election timeout) never expires either.
// Elections start when demi fires a member's Campaign timer, which calls
// RawNode.Campaign; the leader's heartbeats are a Tick timer. What the
// library draws from math/rand never decides anything.
//
// # Properties
//
// ElectionSafety (no two members led the same term; ghost state in stable
// storage) after every event, no panic, and the bounded-liveness property
// "leader" (record.Liveness, docs/writing-a-system.md): within the liveness
// option's number of deliveries after the last fault (start, restart,
// partition, heal), some leader is acknowledged by a majority of the
// members (each of them running, connected to the leader both ways, of the
// leader's term and naming it as leader), unless no member can talk to a
// majority, when nothing can be asked for.
//
// A bound in deliveries holds only if the fuzzer gives elections a chance:
// a Campaign timer that fires while an election is under way starts
// another. The system's swarm range (System.Swarm) keeps the timer
// probability between 0.2% and 2%, where the fixed release keeps the
// default bound over thousands of runs (docs/real-bugs.md).
package etcdraft33

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/coreos/etcd/raft"

	"github.com/demi-project/demi/record"
)

// idPrefix names members etcd-1 … etcd-n; raft IDs are 1 … n.
const idPrefix = "etcd-"

// Option names.
const (
	OptMembers     = "members"
	OptPreVote     = "prevote"
	OptCheckQuorum = "check-quorum"
	OptLiveness    = "liveness"
)

// DefaultLiveness is the liveness option's default: the deliveries after
// the last fault within which a leader must be acknowledged. 2,000 fuzz
// runs of the fixed release (examples/realbugs/prevote-fixed) stay within
// it; docs/real-bugs.md tells how it was chosen.
const DefaultLiveness = 60

func memberID(rid uint64) record.ActorID {
	return record.ActorID(idPrefix + strconv.FormatUint(rid, 10))
}

func members(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int(OptMembers))
	for i := range ids {
		ids[i] = memberID(uint64(i + 1))
	}
	return ids
}

// System returns the etcdraft33 system.
func System() *record.System {
	return &record.System{
		Name: "etcdraft33",
		Doc:  "etcd raft v3.3 (github.com/coreos/etcd/raft) elections with PreVote and CheckQuorum; liveness: a leader within N deliveries of the last fault",
		Options: []record.OptionSpec{
			{Name: OptMembers, Default: "3", Min: 3, Max: 7, Usage: "cluster size"},
			{Name: OptPreVote, Default: "true", Usage: "raft's pre-vote (Config.PreVote)"},
			{Name: OptCheckQuorum, Default: "true", Usage: "raft's leader lease (Config.CheckQuorum)"},
			{Name: OptLiveness, Default: strconv.Itoa(DefaultLiveness), Min: 0, Max: 100000,
				Usage: "deliveries after the last fault within which a leader must be acknowledged by a majority (0: no liveness property)"},
		},
		Members:     members,
		New:         func(id record.ActorID, o record.Options) record.Actor { return newMember(id, o) },
		Messages:    messages(),
		Invariant:   electionSafety,
		Setup:       setup,
		Externals:   generators(),
		Fingerprint: fingerprint,
		Swarm:       &record.SwarmSpec{TimerProb: [2]float64{0.002, 0.02}, Generators: true},
		Liveness: &record.Liveness{
			Name:   "leader",
			Doc:    "leader acknowledged by a majority",
			Within: func(o record.Options) int { return o.Int(OptLiveness) },
			Holds:  hasLeader,
		},
	}
}

func setup(o record.Options) []record.Event {
	var evs []record.Event
	for _, id := range members(o) {
		evs = append(evs, record.StartEvent(id))
	}
	return evs
}

// generators are the fuzzer's external events: client proposals,
// crash-restarts, and partitions that cut a minority off the rest (only
// while the network is whole, so that connectivity is always a set of
// groups) and heal everything.
func generators() []record.Generator {
	return []record.Generator{
		{Name: "propose", Weight: 3, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			ids := v.Members()
			return record.SendEvent(ids[r.IntN(len(ids))], Propose{Data: strconv.Itoa(r.IntN(1000))}), true
		}},
		{Name: "restart", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			ids := v.Members()
			return record.RestartEvent(ids[r.IntN(len(ids))]), true
		}},
		{Name: "partition", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			if cut(v) {
				return record.Event{}, false
			}
			ids := slices.Clone(v.Members())
			r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			k := 1 + r.IntN(len(ids)/2)
			a, b := ids[:k], ids[k:]
			slices.Sort(a)
			slices.Sort(b)
			return record.PartitionEvent(a, b), true
		}},
		{Name: "heal", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			if !cut(v) {
				return record.Event{}, false
			}
			return record.HealEvent(v.Members(), v.Members()), true
		}},
	}
}

// cut reports whether any link is cut.
func cut(v record.View) bool {
	for _, a := range v.Members() {
		for _, b := range v.Members() {
			if a != b && v.Partitioned(a, b) {
				return true
			}
		}
	}
	return false
}

func statusOf(v record.View, id record.ActorID) (status, bool) {
	m, ok := v.Actor(id).(*Member)
	if !ok || m.rn == nil {
		return status{}, false
	}
	return m.status(), true
}

// talk reports whether a and b are both running and connected both ways.
func talk(v record.View, a, b record.ActorID) bool {
	return v.Running(a) && v.Running(b) && (a == b || !v.Partitioned(a, b) && !v.Partitioned(b, a))
}

// hasLeader is the liveness property's predicate: some leader is
// acknowledged by a majority (itself included) of members it can talk
// to, of its term; or no member can talk to a majority at all.
func hasLeader(v record.View) bool {
	ids := v.Members()
	quorum := len(ids)/2 + 1
	possible := false
	for _, a := range ids {
		n := 0
		for _, b := range ids {
			if talk(v, a, b) {
				n++
			}
		}
		possible = possible || n >= quorum
	}
	if !possible {
		return true
	}
	for _, l := range ids {
		ls, ok := statusOf(v, l)
		if !ok || ls.state != raft.StateLeader {
			continue
		}
		n := 0
		for _, m := range ids {
			if ms, ok := statusOf(v, m); ok && talk(v, l, m) && ms.term == ls.term && ms.lead == ls.lead {
				n++
			}
		}
		if n >= quorum {
			return true
		}
	}
	return false
}

// electionSafety: no two members led the same term.
func electionSafety(v record.View) *record.Violation {
	by := map[uint64]record.ActorID{}
	for _, id := range v.Members() {
		for _, t := range ledTerms(v.Storage(id)) {
			if other, ok := by[t]; ok {
				return &record.Violation{Fingerprint: "ElectionSafety",
					Detail: fmt.Sprintf("%s and %s both led term %d", other, id, t)}
			}
			by[t] = id
		}
	}
	return nil
}
