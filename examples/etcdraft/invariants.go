package etcdraft

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// Invariant names, as they appear in violation fingerprints.
const (
	ElectionSafety     = "ElectionSafety"
	LogMatching        = "LogMatching"
	StateMachineSafety = "StateMachineSafety"
)

func violation(inv, detail string, a, b record.ActorID) *record.Violation {
	return &record.Violation{Fingerprint: fmt.Sprintf("%s(%s,%s)", inv, a, b), Detail: detail}
}

// invariant checks, in this order, ElectionSafety, LogMatching,
// StateMachineSafety and Linearizability (kvapp/linearizability.go). A
// fingerprint names the invariant and the members involved, in the run's
// member order; terms, indices and values are in the detail.
//
// It runs after every event of every schedule a minimization checks, so it
// reads each member's ghost state and log once (into a small array on the
// stack for clusters of up to maxStackMembers) and allocates nothing when
// no invariant is violated and no client read was served.
func invariant(v record.View) *record.Violation {
	ms := v.Members()
	var buf [maxStackMembers]member
	gs := buf[:0]
	if len(ms) > len(buf) {
		gs = make([]member, 0, len(ms))
	}
	for _, id := range ms {
		gs = append(gs, read(v, id))
	}
	if x := electionSafety(gs); x != nil {
		return x
	}
	if x := logMatching(gs); x != nil {
		return x
	}
	if x := stateMachineSafety(gs); x != nil {
		return x
	}
	return linearizability(gs)
}

// maxStackMembers is the largest cluster whose state invariant gathers
// without allocating.
const maxStackMembers = 7

// member is what the invariants read of one member: its ghost state (in
// stable storage, so that of a member that is down too) and, if it is
// running, its log.
type member struct {
	id      record.ActorID
	led     []uint64    // ledTerms
	applied []string    // appliedLog
	data    []string    // appliedData
	ops     kvapp.OpLog // history
	log     raftLog
	running bool // the member runs and has a log
}

// read gathers member id's state. The slices are the stored values
// themselves (record.StoredView): the invariants must not change them.
func read(v record.View, id record.ActorID) member {
	st := v.Storage(id)
	g := member{id: id, led: ledTerms(st), applied: appliedLog(st), data: appliedData(st), ops: kvapp.Stored(st)}
	if m, ok := v.Actor(id).(*Member); ok && m.ms != nil {
		g.log, g.running = logOf(m), true
	}
	return g
}

// electionSafety: no two members were leader in the same term. The terms
// each member led are ghost state in its stable storage, so a leader that
// has crashed or stepped down since still counts.
func electionSafety(ms []member) *record.Violation {
	for i, a := range ms {
		as := ascending(a.led)
		for _, b := range ms[i+1:] {
			if t, ok := firstShared(a.led, as, b.led); ok {
				return violation(ElectionSafety, fmt.Sprintf("%s and %s were both leader in term %d", a.id, b.id, t), a.id, b.id)
			}
		}
	}
	return nil
}

// firstShared returns the first term of b, in b's order, that a holds. A
// member records the terms it leads as they come, so both lists are
// usually ascending (aSorted says whether a is), and then one merge finds
// it: the first of b in a is then the smallest term they share.
func firstShared(a []uint64, aSorted bool, b []uint64) (uint64, bool) {
	if aSorted && ascending(b) {
		for i, j := 0, 0; i < len(a) && j < len(b); {
			switch {
			case a[i] < b[j]:
				i++
			case a[i] > b[j]:
				j++
			default:
				return b[j], true
			}
		}
		return 0, false
	}
	for _, t := range b {
		if slices.Contains(a, t) {
			return t, true
		}
	}
	return 0, false
}

// ascending reports whether ts is strictly ascending.
func ascending(ts []uint64) bool {
	for i := 1; i < len(ts); i++ {
		if ts[i] <= ts[i-1] {
			return false
		}
	}
	return true
}

// raftLog is the part of a running member's log raft can read.
type raftLog struct {
	first uint64
	ents  []*raftpb.Entry
}

func logOf(m *Member) raftLog { return m.log }

func (l raftLog) at(i uint64) *raftpb.Entry {
	if i < l.first || i >= l.first+uint64(len(l.ents)) {
		return nil
	}
	return l.ents[i-l.first]
}

// logMatching: if two running members' logs hold an entry with the same
// index and term, they hold the same entries at every index up to there
// (where both still have the entries: compaction drops a prefix).
func logMatching(ms []member) *record.Violation {
	for i := range ms {
		if !ms[i].running {
			continue
		}
		for j := i + 1; j < len(ms); j++ {
			if !ms[j].running {
				continue
			}
			a, b := ms[i].log, ms[j].log
			lo := max(a.first, b.first)
			hi := min(a.first+uint64(len(a.ents)), b.first+uint64(len(b.ents)))
			// The highest common index where the terms agree.
			top := uint64(0)
			for k := hi; k > lo; k-- {
				if a.at(k-1).GetTerm() == b.at(k-1).GetTerm() {
					top = k - 1
					break
				}
			}
			for k := lo; top > 0 && k <= top; k++ {
				ea, eb := a.at(k), b.at(k)
				if ea.GetTerm() != eb.GetTerm() || string(ea.GetData()) != string(eb.GetData()) {
					return violation(LogMatching, fmt.Sprintf(
						"%s and %s both hold an entry of term %d at index %d, but differ at index %d (t%d %q vs t%d %q)",
						ms[i].id, ms[j].id, a.at(top).GetTerm(), top, k, ea.GetTerm(), ea.GetData(), eb.GetTerm(), eb.GetData()), ms[i].id, ms[j].id)
				}
			}
		}
	}
	return nil
}

// stateMachineSafety: no two members applied different entries at the same
// index (ghost state: what each member applied, kept across crashes).
func stateMachineSafety(ms []member) *record.Violation {
	for i, a := range ms {
		for _, b := range ms[i+1:] {
			la, lb := a.applied, b.applied
			for k := range min(len(la), len(lb)) {
				if la[k] != "" && lb[k] != "" && la[k] != lb[k] {
					return violation(StateMachineSafety, fmt.Sprintf(
						"%s applied %s at index %d, %s applied %s", a.id, la[k], k, b.id, lb[k]), a.id, b.id)
				}
			}
		}
	}
	return nil
}

// linearizability checks the completed reads (kvapp.Linearizability). The
// fingerprint names the member that answered the read with no place in
// the write order. A run without reads costs nothing; the arguments of
// kvapp.CheckReads are on the stack for up to maxStackMembers members.
func linearizability(ms []member) *record.Violation {
	if !slices.ContainsFunc(ms, func(m member) bool { return m.ops.Reads > 0 }) {
		return nil
	}
	var idBuf [maxStackMembers]record.ActorID
	var hBuf [maxStackMembers][]kvapp.Op
	var logBuf [maxStackMembers][]string
	ids, hs, logs := idBuf[:0], hBuf[:0], logBuf[:0]
	for _, m := range ms {
		ids, hs, logs = append(ids, m.id), append(hs, m.ops.Ops), append(logs, m.data)
	}
	return kvapp.CheckReads(ids, hs, logs)
}
