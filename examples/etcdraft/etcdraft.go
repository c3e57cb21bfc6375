// Package etcdraft puts etcd's Raft library (go.etcd.io/raft/v3),
// unmodified, under demi: each member of a cluster is a demi actor that
// holds a raft.RawNode and handles its Ready like a real application, with
// a small key-value store as the state machine. docs/etcdraft.md explains
// how the adapter is built, as a model for putting any Go system under
// demi.
//
// # The adapter
//
// A Member keeps its durable state (HardState, snapshot, log entries) in
// demi's stable storage, so a crash-restart loses exactly what a real
// process loses: the RawNode, raft's MemoryStorage and the key-value store
// are rebuilt from it on every start. Raft messages travel as demi
// messages, one Go type per kind of raft message (App, Vote, Heartbeat, …)
// so that demi's coarse match by type tells them apart; client requests
// (Put, Get) are external messages. Every Ready is handled in the documented
// order: write snapshot, entries and HardState; send the messages; apply
// the snapshot and the committed entries; Advance. Every snapshot-every
// applied client writes a member takes a snapshot and compacts its log, so a
// member that lags behind or restarts is caught up by snapshot.
//
// # Determinism
//
// The library draws each follower's randomized election timeout from
// crypto/rand inside its tick logic. The adapter gives ticks no power to
// start an election (ElectionTick is 2^20 ticks, never reached) and drives
// elections with a Campaign timer that demi fires when its schedule says
// so; the leader's heartbeats are a Tick timer. What crypto/rand draws
// never decides anything, and `demi replay --times 50` replays every run
// exactly.
//
// # Invariants
//
// After every delivery: ElectionSafety (no two members led the same term;
// each member records the terms it led as ghost state in stable storage,
// which the invariant reads through record.View.Storage), LogMatching (two
// logs that hold an entry of the same index and term agree up to there),
// StateMachineSafety (no two members applied different entries at an
// index; ghost state too), Linearizability (every completed client read
// returns a value a linearizable order of the clients' operations allows;
// each member records the operations it served, with the run's event
// indices as their times, as ghost state), and no panic: a panic inside
// the library is a violation whose fingerprint names the panic and the
// library function. Reads go through RawNode.ReadIndex, as etcd's server
// serves linearizable reads.
//
// # Bug switches
//
// Each switch breaks one step of the Ready contract the way real
// integrations have (docs/examples.md tells the stories):
//
//   - send-before-persist: messages go out before the HardState and the
//     entries are durable; a member that crashes in between forgets its
//     vote and can vote twice in a term.
//   - apply-before-commit: entries are applied when appended, not when
//     committed.
//   - skip-snapshot-persist: a snapshot received from the leader is applied
//     but not written to stable storage.
//   - hardstate-before-entries: the HardState and the entries are written
//     separately, the HardState first, so a crash in between leaves a
//     commit index beyond the durable log.
//   - leader-local-read: a member that believes it leads answers reads
//     from its own store without ReadIndex, so a deposed leader that has
//     not heard of its successor returns stale values.
package etcdraft

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/demi-project/demi/record"
)

// The bug switches.
const (
	BugSendBeforePersist   = "send-before-persist"
	BugApplyBeforeCommit   = "apply-before-commit"
	BugSkipSnapshotPersist = "skip-snapshot-persist"
	BugHardStateFirst      = "hardstate-before-entries"
	BugLeaderLocalRead     = "leader-local-read"
)

// BugNames returns the bug switches.
func BugNames() []string {
	return []string{BugSendBeforePersist, BugApplyBeforeCommit, BugSkipSnapshotPersist, BugHardStateFirst, BugLeaderLocalRead}
}

// Option names other than the bug switches.
const (
	OptMembers         = "members"
	OptSnapshotEvery   = "snapshot-every"
	OptPreVote         = "prevote"
	OptClientWeight    = "client-weight"
	OptRestartWeight   = "restart-weight"
	OptKillWeight      = "kill-weight"
	OptPartitionWeight = "partition-weight"
	OptReadWeight      = "read-weight"
	OptReadRetry       = "read-retry"
	OptVirtualTime     = "virtual-time"
	OptMaxDelay        = "max-delay"
)

// Bounds of the options (see record.OptionSpec): values from a trace
// header or a flag are untrusted, so each option states what makes sense.
// etcd clusters are a handful of members (every member keeps the state of
// its peers' progress, so n members cost n² state); a snapshot interval
// beyond a thousand writes never fires in a fuzz run; weights are
// relative, so 1000 is plenty.
const (
	MaxMembers       = 9
	MaxSnapshotEvery = 1000
	MaxWeight        = 1000
	MaxMaxDelay      = 1000
)

const idPrefix = "etcd-"

// memberID is the actor of raft ID id.
func memberID(id uint64) record.ActorID { return record.ActorID(idPrefix + strconv.FormatUint(id, 10)) }

// Members returns the actor IDs etcd-1 … etcd-n (raft IDs 1 … n).
func Members(o record.Options) []record.ActorID {
	n := max(1, o.Int(OptMembers))
	ids := make([]record.ActorID, n)
	for i := range ids {
		ids[i] = memberID(uint64(i + 1))
	}
	return ids
}

// Setup starts every member.
func Setup(o record.Options) []record.Event {
	var evs []record.Event
	for _, id := range Members(o) {
		evs = append(evs, record.StartEvent(id))
	}
	return evs
}

// System returns the etcdraft system definition.
func System() *record.System {
	opts := []record.OptionSpec{
		{Name: OptMembers, Default: "3", Usage: "number of cluster members", Min: 1, Max: MaxMembers},
		{Name: OptSnapshotEvery, Default: "5", Usage: "a member snapshots and compacts its log every N applied client writes (0: never)", Min: 0, Max: MaxSnapshotEvery},
		{Name: OptPreVote, Default: "false", Usage: "raft's pre-vote (Config.PreVote)"},
		{Name: OptClientWeight, Default: "10", Usage: "fuzzing weight of client requests", Min: 0, Max: MaxWeight},
		{Name: OptRestartWeight, Default: "1", Usage: "fuzzing weight of crash-restarts", Min: 0, Max: MaxWeight},
		{Name: OptKillWeight, Default: "0", Usage: "fuzzing weight of kills (or starts of killed members)", Min: 0, Max: MaxWeight},
		{Name: OptPartitionWeight, Default: "1", Usage: "fuzzing weight of partitions and heals between two members", Min: 0, Max: MaxWeight},
		{Name: OptReadWeight, Default: "0", Usage: "fuzzing weight of client reads (Get)", Min: 0, Max: MaxWeight},
		{Name: OptVirtualTime, Default: "false", Usage: "timers on a virtual clock: heartbeats every tick, an election after 10 to 19 ticks without a leader's word"},
		{Name: OptMaxDelay, Default: "2", Usage: "with virtual-time, the most ticks a message is in flight", Min: 0, Max: MaxMaxDelay},
	}
	docs := map[string]string{
		BugSendBeforePersist:   "messages are sent before the HardState and entries are written (a crash in between forgets a vote)",
		BugApplyBeforeCommit:   "entries are applied to the state machine when appended, before they are committed",
		BugSkipSnapshotPersist: "a snapshot received from the leader is applied but not written to stable storage",
		BugHardStateFirst:      "HardState and entries are separate writes, HardState first (a crash in between loses entries)",
		BugLeaderLocalRead:     "a member that believes it leads answers reads from its own state, without ReadIndex",
	}
	for _, b := range BugNames() {
		opts = append(opts, record.OptionSpec{Name: b, Default: "false", Usage: docs[b], Bug: true})
	}
	return &record.System{
		Name:    "etcdraft",
		Doc:     "etcd's raft library (go.etcd.io/raft/v3) with a key-value store, and Ready-contract bugs",
		Options: opts,
		Members: Members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return newMember(id, o)
		},
		Messages:    messages(),
		Fingerprint: fingerprint,
		Invariant:   invariant,
		Setup:       Setup,
		Externals:   []record.Generator{{Name: "etcdraft-external", Weight: 1, Make: makeExternal, Each: eachExternal}},
		Swarm:       swarm(),
		Time:        timeModel,
		Abstract:    abstractState, // abstract.go
		LowerBound:  lowerBound,    // lowerbound.go
		Conditions: map[string]func(record.View) bool{
			"leader-elected": func(v record.View) bool {
				for _, id := range v.Members() {
					if m, ok := v.Actor(id).(*Member); ok && m.leader {
						return true
					}
				}
				return false
			},
		},
	}
}

// timeModel is the run's time model (record.System.Time): with option
// virtual-time, timers fire on a virtual clock and a message is in flight
// at most max-delay ticks.
func timeModel(o record.Options) *record.TimeModel {
	if !o.Bool(OptVirtualTime) {
		return nil
	}
	return &record.TimeModel{MaxDelay: record.VirtualTime(o.Int(OptMaxDelay))}
}

// swarm is what a swarm-mode fuzz run of etcdraft draws (record.Swarm):
// the weights of client writes, crash-restarts, kills, partitions and
// client reads, each kind left out of some runs, and the timer
// probability. Reads are on in 70% of the runs, so that a bug of the
// read path (leader-local-read) is within reach of a plain demi fuzz.
func swarm() *record.SwarmSpec {
	return &record.SwarmSpec{
		Options: []record.SwarmOption{
			{Name: OptClientWeight, Off: 0.2, Min: 1, Max: 20},
			{Name: OptRestartWeight, Off: 0.2, Min: 1, Max: 5},
			{Name: OptKillWeight, Off: 0.85, Min: 1, Max: 3},
			{Name: OptPartitionWeight, Off: 0.3, Min: 1, Max: 5},
			{Name: OptReadWeight, Off: 0.3, Min: 1, Max: 20},
		},
		TimerProb:    [2]float64{0.01, 0.2},
		Externals:    [2]int{50, 200},
		ExternalProb: [2]float64{0.02, 0.2},
	}
}

// makeExternal draws one external event, its kind by the weight options: a
// client Put to a random member, a crash-restart, a kill (or the start of
// a killed member), a partition (or heal) between two members, or a client
// Get to a random member. The read weight comes last, so that with
// read-weight 0 (the default) the draws are those of a system without
// reads.
func makeExternal(r *rand.Rand, v record.View) (record.Event, bool) {
	o := v.Options()
	w := [5]int{
		max(0, o.Int(OptClientWeight)), max(0, o.Int(OptRestartWeight)),
		max(0, o.Int(OptKillWeight)), max(0, o.Int(OptPartitionWeight)),
		max(0, o.Int(OptReadWeight)),
	}
	total := w[0] + w[1] + w[2] + w[3] + w[4]
	if total == 0 {
		return record.Event{}, false
	}
	ms := v.Members()
	pick := func() record.ActorID { return ms[r.IntN(len(ms))] }
	x := r.IntN(total)
	switch {
	case x < w[0]:
		p := Put{Key: fmt.Sprintf("k%d", r.IntN(4)), Value: strconv.Itoa(1 + r.IntN(1000))}
		if r.IntN(5) == 0 {
			p.Value = "" // a delete
		}
		return record.SendEvent(pick(), p), true
	case x < w[0]+w[1]:
		id := pick()
		if !v.Running(id) {
			return record.Event{}, false
		}
		return record.RestartEvent(id), true
	case x < w[0]+w[1]+w[2]:
		id := pick()
		if v.Running(id) {
			return record.KillEvent(id), true
		}
		return record.StartEvent(id), true
	case x >= w[0]+w[1]+w[2]+w[3]:
		return record.SendEvent(pick(), Get{Key: fmt.Sprintf("k%d", r.IntN(4))}), true
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

// eachExternal lists the external events makeExternal could draw in v, one
// of each kind, for minimization (record.Generator.Each): under the weight
// options, a client Put and a client Get to each member (key k0: keys are
// names, any one serves), a crash-restart of each running member, a kill of
// each running member or the start of each killed one, and a partition (or
// heal) of each pair of members.
func eachExternal(v record.View) []record.Event {
	o := v.Options()
	ms := v.Members()
	var out []record.Event
	for _, id := range ms {
		if o.Int(OptClientWeight) > 0 {
			out = append(out, record.SendEvent(id, Put{Key: "k0", Value: "1"}))
		}
		if o.Int(OptReadWeight) > 0 {
			out = append(out, record.SendEvent(id, Get{Key: "k0"}))
		}
	}
	for _, id := range ms {
		running := v.Running(id)
		if o.Int(OptRestartWeight) > 0 && running {
			out = append(out, record.RestartEvent(id))
		}
		if o.Int(OptKillWeight) > 0 {
			if running {
				out = append(out, record.KillEvent(id))
			} else {
				out = append(out, record.StartEvent(id))
			}
		}
	}
	if o.Int(OptPartitionWeight) > 0 {
		for i, a := range ms {
			for _, b := range ms[i+1:] {
				one, other := []record.ActorID{a}, []record.ActorID{b}
				if v.Partitioned(a, b) {
					out = append(out, record.HealEvent(one, other))
				} else {
					out = append(out, record.PartitionEvent(one, other))
				}
			}
		}
	}
	return out
}
