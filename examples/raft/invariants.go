package raft

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// Invariant names, as they appear in violation fingerprints.
const (
	ElectionSafety     = "ElectionSafety"
	LogMatching        = "LogMatching"
	LeaderCompleteness = "LeaderCompleteness"
	StateMachineSafety = "StateMachineSafety"
)

// running returns the bootstrapped, running members in the run's order.
func running(v record.View) []*Node {
	var out []*Node
	for _, id := range v.Members() {
		if n, ok := v.Actor(id).(*Node); ok && n.Bootstrapped() {
			out = append(out, n)
		}
	}
	return out
}

func violation(inv string, detail string, ids ...record.ActorID) *record.Violation {
	fp := inv + "("
	for i, id := range ids {
		if i > 0 {
			fp += ","
		}
		fp += string(id)
	}
	return &record.Violation{Fingerprint: fp + ")", Detail: detail}
}

// invariant checks Raft's safety properties (Figure 3 of the Raft paper) on
// the running members, in this order: Election Safety, Log Matching, Leader
// Completeness, State Machine Safety. The fingerprint is the invariant's
// name and the members involved, in the run's member order; terms, indices
// and commands go only into the detail.
func invariant(v record.View) *record.Violation {
	nodes := running(v)
	if x := electionSafety(nodes); x != nil {
		return x
	}
	if x := logMatching(nodes); x != nil {
		return x
	}
	if x := leaderCompleteness(nodes); x != nil {
		return x
	}
	return stateMachineSafety(nodes)
}

// electionSafety: at most one leader is elected in a term. Every member
// remembers (in stable storage) the terms it was leader of, so two leaders
// of one term are caught even when one has stepped down since.
func electionSafety(nodes []*Node) *record.Violation {
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			if t, ok := commonTerm(a.ledTerms, b.ledTerms); ok {
				return violation(ElectionSafety, fmt.Sprintf("%s and %s were both leader in term %d", a.id, b.id, t), a.id, b.id)
			}
		}
	}
	return nil
}

// commonTerm finds a value in both ascending lists.
func commonTerm(a, b []int) (int, bool) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return a[i], true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 0, false
}

// logMatching: if two logs hold an entry with the same index and term, the
// logs are identical up to that index.
func logMatching(nodes []*Node) *record.Violation {
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			if k, first, ok := logsDiverge(a.log, b.log); ok {
				return violation(LogMatching, fmt.Sprintf(
					"%s and %s both hold an entry of term %d at index %d, but differ at index %d (%v vs %v)",
					a.id, b.id, a.log[k].Term, k+1, first+1, a.log[first], b.log[first]), a.id, b.id)
			}
		}
	}
	return nil
}

// logsDiverge reports whether logs p and q break Log Matching, and where:
// at position k both hold an entry of the same term, although they differ
// at position first <= k (0-based; the first such k).
func logsDiverge(p, q []Entry) (k, first int, ok bool) {
	first = -1
	for k := range min(len(p), len(q)) {
		if first < 0 && p[k] != q[k] {
			first = k
		}
		if first >= 0 && p[k].Term == q[k].Term {
			return k, first, true
		}
	}
	return 0, 0, false
}

// leaderCompleteness: an entry committed in a term is in the log of every
// leader of a later term. A member records the term it was in when it
// learned an entry was committed; the entry was committed in that term or
// earlier, so every leader of a later term must hold it.
func leaderCompleteness(nodes []*Node) *record.Violation {
	for _, l := range nodes {
		if l.role != Leader {
			continue
		}
		for _, m := range nodes {
			for k, c := range m.committed {
				if c.At >= l.term {
					continue
				}
				if k >= len(l.log) || l.log[k] != c.Entry {
					have := "nothing"
					if k < len(l.log) {
						have = l.log[k].String()
					}
					return violation(LeaderCompleteness, fmt.Sprintf(
						"leader %s of term %d holds %s at index %d, but %s knew %v committed there in term %d",
						l.id, l.term, have, k+1, m.id, c.Entry, c.At), l.id)
				}
			}
		}
	}
	return nil
}

// stateMachineSafety: no two members apply different entries at the same
// index.
func stateMachineSafety(nodes []*Node) *record.Violation {
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			n := min(len(a.committed), len(b.committed))
			for k := 0; k < n; k++ {
				if a.committed[k].Entry != b.committed[k].Entry {
					return violation(StateMachineSafety, fmt.Sprintf(
						"%s applied %v at index %d, %s applied %v", a.id, a.committed[k].Entry, k+1, b.id, b.committed[k].Entry), a.id, b.id)
				}
			}
		}
	}
	return nil
}
