package raft

import "strconv"

// AbstractState maps the member onto the variables of Raft's TLA+
// specification, as ModelFuzz does for etcd raft (record.Abstracted): its
// role, term, vote, votes gathered, commit index and the terms of its log
// entries. Command payloads, timers and the leader's per-follower indices
// are left out, so coverage-guided fuzzing (demi fuzz --mode coverage)
// counts protocol states rather than payloads.
func (n *Node) AbstractState() string {
	b := make([]byte, 0, 32+3*len(n.log))
	b = append(b, n.role.String()[0])
	b = strconv.AppendInt(b, int64(n.term), 10)
	b = append(b, ' ')
	b = append(b, n.votedFor...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(n.voteCount), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(n.commitIndex), 10)
	b = append(b, ' ')
	for _, e := range n.log {
		b = strconv.AppendInt(b, int64(e.Term), 10)
		b = append(b, ',')
	}
	return string(b)
}
