package etcdraft

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3/raftpb"

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
// StateMachineSafety and Linearizability (linearizability.go). A
// fingerprint names the invariant and the members involved, in the run's
// member order; terms, indices and values are in the detail.
func invariant(v record.View) *record.Violation {
	if x := electionSafety(v); x != nil {
		return x
	}
	if x := logMatching(v); x != nil {
		return x
	}
	if x := stateMachineSafety(v); x != nil {
		return x
	}
	return linearizability(v)
}

// electionSafety: no two members were leader in the same term. The terms
// each member led are ghost state in its stable storage, so a leader that
// has crashed or stepped down since still counts.
func electionSafety(v record.View) *record.Violation {
	ms := v.Members()
	for i, a := range ms {
		la := ledTerms(v.Storage(a))
		for _, b := range ms[i+1:] {
			for _, t := range ledTerms(v.Storage(b)) {
				if slices.Contains(la, t) {
					return violation(ElectionSafety, fmt.Sprintf("%s and %s were both leader in term %d", a, b, t), a, b)
				}
			}
		}
	}
	return nil
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
func logMatching(v record.View) *record.Violation {
	var ids []record.ActorID
	var logs []raftLog
	for _, id := range v.Members() {
		if m, ok := v.Actor(id).(*Member); ok && m.ms != nil {
			ids = append(ids, id)
			logs = append(logs, logOf(m))
		}
	}
	for i := range logs {
		for j := i + 1; j < len(logs); j++ {
			a, b := logs[i], logs[j]
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
						ids[i], ids[j], a.at(top).GetTerm(), top, k, ea.GetTerm(), ea.GetData(), eb.GetTerm(), eb.GetData()), ids[i], ids[j])
				}
			}
		}
	}
	return nil
}

// stateMachineSafety: no two members applied different entries at the same
// index (ghost state: what each member applied, kept across crashes).
func stateMachineSafety(v record.View) *record.Violation {
	ms := v.Members()
	applied := make([][]string, len(ms))
	for i, id := range ms {
		applied[i] = appliedLog(v.Storage(id))
	}
	for i, a := range ms {
		for j := i + 1; j < len(ms); j++ {
			la, lb := applied[i], applied[j]
			for k := range min(len(la), len(lb)) {
				if la[k] != "" && lb[k] != "" && la[k] != lb[k] {
					return violation(StateMachineSafety, fmt.Sprintf(
						"%s applied %s at index %d, %s applied %s", a, la[k], k, ms[j], lb[k]), a, ms[j])
				}
			}
		}
	}
	return nil
}
