// Package kvraft is a held-out demi system: a replicated key-value store
// of three members built on etcd raft's RawNode (go.etcd.io/raft/v3).
//
// Clients (the fuzzer's external events) send Put, Append and Get to any
// member. A member proposes writes through raft, applies committed entries
// to an in-memory map, and answers a Get after a ReadIndex round (the
// leader confirms it still leads) once it has applied up to the read
// index. Raft's HardState, log and snapshot live in demi's stable storage,
// and so does the map with the index it was applied up to (as a database
// keeps its data with its consistent index): a member that crash-restarts
// reads both back and tells raft (Config.Applied) how far its map goes.
//
// Invariant AppliedState (state machine safety, at the application
// level): every member's map right after applying index i is the same,
// across members and across a member's incarnations, and a running
// member's map equals what it was when it first reached its applied
// index. The bug switch reapply-after-restart does not tell raft the
// restored map's applied index, so raft hands the restarted member its
// committed entries again and it applies them twice (an Append doubles).
package kvraft

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/demi-project/demi/record"
)

// Options.
const (
	OptMembers = "members"
	OptKeys    = "keys"
	// BugReapplyAfterRestart is the bug switch (see the package comment).
	BugReapplyAfterRestart = "reapply-after-restart"
)

const prefix = "kv-"

func memberID(rid uint64) record.ActorID { return record.ActorID(prefix + strconv.FormatUint(rid, 10)) }

func members(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int(OptMembers))
	for i := range ids {
		ids[i] = memberID(uint64(i + 1))
	}
	return ids
}

func keys(o record.Options) []string {
	ks := make([]string, max(1, o.Int(OptKeys)))
	for i := range ks {
		ks[i] = string(rune('a' + i))
	}
	return ks
}

var values = []string{"1", "2", "3"}

// System describes the store to demi.
func System() *record.System {
	pick := func(r *rand.Rand, v record.View) (record.ActorID, string, bool) {
		ids := members(v.Options())
		id := ids[r.IntN(len(ids))]
		ks := keys(v.Options())
		return id, ks[r.IntN(len(ks))], v.Running(id)
	}
	return &record.System{
		Name: "kvraft",
		Doc:  "a replicated key-value store on etcd raft's RawNode (3 members)",
		Options: []record.OptionSpec{
			{Name: OptMembers, Default: "3", Usage: "number of members", Min: 1, Max: 7},
			{Name: OptKeys, Default: "2", Usage: "number of keys clients use", Min: 1, Max: 5},
			{Name: BugReapplyAfterRestart, Default: "false", Bug: true,
				Usage: "a restarted member does not tell raft how far its restored map goes, and applies committed entries again"},
		},
		Members:     members,
		New:         func(id record.ActorID, o record.Options) record.Actor { return newMember(id, o) },
		Messages:    messages(),
		Invariant:   invariant,
		Fingerprint: fingerprint,
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range members(o) {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Externals: []record.Generator{
			{Name: "put", Weight: 2, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				id, k, ok := pick(r, v)
				return record.SendEvent(id, Put{Key: k, Value: values[r.IntN(len(values))]}), ok
			}},
			{Name: "append", Weight: 2, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				id, k, ok := pick(r, v)
				return record.SendEvent(id, Append{Key: k, Value: values[r.IntN(len(values))]}), ok
			}},
			{Name: "get", Weight: 2, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				id, k, ok := pick(r, v)
				return record.SendEvent(id, Get{Key: k}), ok
			}},
			{Name: "restart", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				ids := members(v.Options())
				id := ids[r.IntN(len(ids))]
				return record.RestartEvent(id), v.Running(id)
			}},
		},
	}
}

// invariant checks AppliedState: first each running member's map against
// the digest it recorded when it first applied its current index, then
// every pair of members' digests at each index both applied.
func invariant(v record.View) *record.Violation {
	ids := v.Members()
	digs := make([][]string, len(ids))
	for i, id := range ids {
		digs[i] = Digests(v.Storage(id))
		if !v.Running(id) {
			continue
		}
		m, ok := v.Actor(id).(*Member)
		if !ok || m.rn == nil {
			continue
		}
		if a := int(m.applied); a < len(digs[i]) && digs[i][a] != "" && digs[i][a] != "@"+m.kv.Digest() {
			return &record.Violation{Fingerprint: fmt.Sprintf("AppliedState(%s)", id),
				Detail: fmt.Sprintf("%s's map at applied index %d is {%s}, but it was {%s} when %s first applied %d",
					id, a, m.kv.Digest(), digs[i][a][1:], id, a)}
		}
	}
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			for k := range min(len(digs[i]), len(digs[j])) {
				a, b := digs[i][k], digs[j][k]
				if a != "" && b != "" && a != b {
					return &record.Violation{Fingerprint: fmt.Sprintf("AppliedState(%s,%s)", ids[i], ids[j]),
						Detail: fmt.Sprintf("after applying index %d, %s's map was {%s} and %s's {%s}",
							k, ids[i], a[1:], ids[j], b[1:])}
				}
			}
		}
	}
	return nil
}
