package raft

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// abstractState maps a run onto the variables of Raft's TLA+
// specification, as ModelFuzz does for etcd raft (record.System.Abstract),
// and bounds them so that coverage-guided fuzzing (demi fuzz --mode
// coverage) counts protocol situations rather than the length of the run.
// Per member: its role; its term relative to the highest term of a running
// member (equal, one below, two or more below); its vote (none, itself, a
// member that is a candidate or leader of the voter's term, another); for
// a candidate or leader the votes it holds, and for a leader whether it
// has initialized its replication state; its log relative to the longest
// log (equal, one shorter, two or more), the term of its last entry
// relative to the highest term (empty, equal, one, two, three or more
// below) and how many of its entries are not yet known committed (0, 1,
// 2, 3 or more). Members are interchangeable (the system's symmetry), so
// the members' abstract states form a sorted multiset (each state counted
// up to twice, record.AbstractMultiset). Payloads, timers,
// nextIndex/matchIndex values and absolute terms and indices are left
// out.
func abstractState(v record.View) string {
	ms := v.Members()
	nodes := make([]*Node, len(ms))
	maxTerm, maxLen := 0, 0
	for i, id := range ms {
		if n, ok := v.Actor(id).(*Node); ok {
			nodes[i] = n
			maxTerm = max(maxTerm, n.term)
			maxLen = max(maxLen, len(n.log))
		}
	}
	per := make([]string, len(ms))
	for i, n := range nodes {
		per[i] = abstractNode(n, nodes, ms, maxTerm, maxLen)
	}
	// Several followers in step are one situation whether they are two
	// or eight.
	return record.AbstractMultiset(per, 2)
}

// abstractNode is one member's part of abstractState.
func abstractNode(n *Node, nodes []*Node, ms []record.ActorID, maxTerm, maxLen int) string {
	switch {
	case n == nil:
		return "down"
	case n.members == nil:
		return "new"
	}
	var buf [8]byte
	b := append(buf[:0], n.role.String()[0], record.AbstractBelow(maxTerm-n.term, 1))
	switch {
	case n.votedFor == "":
		b = append(b, '-')
	case n.votedFor == n.id:
		b = append(b, 's')
	default:
		c := byte('o')
		if k := slices.Index(ms, n.votedFor); k >= 0 && nodes[k] != nil && nodes[k].term == n.term && nodes[k].role != Follower {
			c = 'c'
		}
		b = append(b, c)
	}
	if n.role == Leader {
		init := byte('u')
		if n.initialized {
			init = 'i'
		}
		b = append(b, init)
	}
	b = append(b, ' ', record.AbstractBelow(maxLen-len(n.log), 1))
	if len(n.log) == 0 {
		b = append(b, 'e')
	} else {
		b = append(b, record.AbstractBelow(maxTerm-n.log[len(n.log)-1].Term, 1))
	}
	return string(append(b, record.AbstractBelow(len(n.log)-min(n.commitIndex, len(n.log)), 1)))
}
