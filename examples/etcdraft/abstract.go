package etcdraft

import (
	"go.etcd.io/raft/v3"

	"github.com/demi-project/demi/record"
)

// abstractState maps a run onto the variables ModelFuzz maps etcd raft
// onto (its TLA+ model's), bounded so that coverage-guided fuzzing (demi
// fuzz --mode coverage) counts protocol situations rather than the length
// of the run (record.System.Abstract). Per member: its raft state; its
// term relative to the highest term of a running member (equal, one
// below, two or more below); its vote (none, itself, a member that
// campaigns or leads in the voter's term, another); whether it knows a
// leader; its last log index relative to the longest log (equal, one, two
// or more below), the term of its last entry relative to the highest term
// (0 to 3 or more below), the entries it holds beyond its commit index
// and those committed but not applied (0, 1, 2 or more each); and the
// client requests it has in progress (0, 1, 2 or more). Members are
// interchangeable, so the members' states form a sorted multiset, each
// state counted up to twice (record.AbstractMultiset).
func abstractState(v record.View) string {
	ids := v.Members()
	ms := make([]*Member, len(ids))
	var maxTerm, maxLast uint64
	for i, id := range ids {
		if m, ok := v.Actor(id).(*Member); ok && m.rn != nil {
			ms[i] = m
			st := m.rn.BasicStatus()
			maxTerm = max(maxTerm, st.HardState.GetTerm())
			maxLast = max(maxLast, lastIndex(m))
		}
	}
	per := make([]string, len(ids))
	for i, m := range ms {
		if m == nil {
			per[i] = "down"
			continue
		}
		st := m.rn.BasicStatus()
		term, vote, commit := st.HardState.GetTerm(), st.HardState.GetVote(), st.HardState.GetCommit()
		var buf [12]byte
		b := append(buf[:0], st.RaftState.String()[5], record.AbstractBelow(maxTerm-term, 2)) // State[F]ollower, State[C]andidate, ...
		switch {
		case vote == 0:
			b = append(b, '-')
		case vote == m.rid:
			b = append(b, 's')
		default:
			c := byte('o')
			if k := int(vote) - 1; k >= 0 && k < len(ms) && ms[k] != nil {
				o := ms[k].rn.BasicStatus()
				if o.HardState.GetTerm() == term && o.RaftState != raft.StateFollower {
					c = 'c'
				}
			}
			b = append(b, c)
		}
		lead := byte('-')
		if st.Lead != 0 {
			lead = 'l'
		}
		b = append(b, lead, ' ')
		last := lastIndex(m)
		b = append(b, record.AbstractBelow(maxLast-last, 2), record.AbstractBelow(maxTerm-lastTerm(m), 3), record.AbstractBelow(last-min(commit, last), 2),
			record.AbstractBelow(commit-min(m.applied, commit), 2), record.AbstractBelow(uint64(len(m.proposals)+len(m.reads)), 2))
		per[i] = string(b)
	}
	return record.AbstractMultiset(per, 2)
}

func lastIndex(m *Member) uint64 {
	last, _ := m.ms.LastIndex()
	return last
}

func lastTerm(m *Member) uint64 {
	t, _ := m.ms.Term(lastIndex(m))
	return t
}
