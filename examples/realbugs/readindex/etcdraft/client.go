package etcdraft

import (
	"slices"
	"strconv"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/record"
)

// The client side of a member: the Puts it proposed and the Gets it is
// serving, and the history of client operations it records as ghost state
// (keyOps in stable storage) for the Linearizability invariant. An
// operation is invoked when the member receives the client's request and
// completes when the member answers it: a Put when the member applies the
// entry it proposed, a Get when the member has applied the log up to the
// read index raft gave it. Event indices (record.Context.EventIndex) are
// the run's clock. A crash loses the requests in progress, as a real
// server's crash does: their clients never get an answer.

// clientOp is one client operation in a member's history (ghost state).
type clientOp struct {
	Read bool
	Key  string
	// Value is what a Put wrote or a Get returned; Absent marks a delete
	// or a read of a missing key.
	Value  string
	Absent bool
	// Inv and Resp are the event indices of the request's arrival and of
	// the answer (Resp is 0 for a Put not answered yet).
	Inv, Resp int
	// Index is the log index of a completed Put's entry.
	Index uint64
}

// proposal is a Put waiting for its entry to be applied.
type proposal struct {
	data string
	op   int // its clientOp in the history
}

// pendingRead is a Get waiting for its read index, then for the log to be
// applied up to it.
type pendingRead struct {
	rctx  string
	key   string
	inv   int
	index uint64
	ready bool // the read index is known
}

// opLog is a member's history as stable storage keeps it, with the number
// of reads in it (the Linearizability invariant has nothing to check in a
// run without reads, and learns it without scanning the histories).
// Storage copies what it stores and what it returns; a clientOp holds no
// references, so DeepCopy is one copy of the slice (the reflective copy it
// replaces costs several allocations per member event that records an
// operation).
type opLog struct {
	ops   []clientOp
	reads int
}

// DeepCopy implements record.DeepCopier.
func (l opLog) DeepCopy() any { return opLog{slices.Clone(l.ops), l.reads} }

// storedOps returns a member's history and its number of reads.
func storedOps(st getter) opLog {
	v, _ := st.Get(keyOps)
	l, _ := v.(opLog)
	return l
}

// history returns a member's client operations (ghost state).
func history(st getter) []clientOp { return storedOps(st).ops }

// recordOp appends op to the member's history and returns its position.
func recordOp(ctx *record.Context, op clientOp) int {
	st := ctx.Storage()
	l := storedOps(st)
	l.ops = append(l.ops, op)
	if op.Read {
		l.reads++
	}
	st.Put(keyOps, l)
	return len(l.ops) - 1
}

// propose records the invocation of a Put and proposes it to raft (which
// drops it when no leader is known: the client then gets no answer).
func (n *Member) propose(ctx *record.Context, p Put) {
	data := command(p)
	i := recordOp(ctx, clientOp{Key: p.Key, Value: p.Value, Absent: p.Value == "", Inv: ctx.EventIndex()})
	if n.rn.Propose(data) == nil {
		n.proposals = append(n.proposals, proposal{data: string(data), op: i})
	}
}

// completePut answers the first waiting Put whose command is e's: the
// member has applied it.
func (n *Member) completePut(ctx *record.Context, e *raftpb.Entry) {
	k := slices.IndexFunc(n.proposals, func(p proposal) bool { return p.data == string(e.Data) })
	if k < 0 {
		return
	}
	p := n.proposals[k]
	n.proposals = slices.Delete(n.proposals, k, k+1)
	st := ctx.Storage()
	l := storedOps(st)
	l.ops[p.op].Resp = ctx.EventIndex()
	l.ops[p.op].Index = e.Index
	st.Put(keyOps, l)
}

// read starts serving a Get: with ReadIndex, or (the leader-local-read
// bug) from the key-value store at once when the member believes it leads.
func (n *Member) read(ctx *record.Context, g Get) {
	if n.bugs.leaderLocalRead && n.leader {
		n.answer(ctx, pendingRead{key: g.Key, inv: ctx.EventIndex()})
		return
	}
	rctx := "r" + strconv.Itoa(ctx.EventIndex())
	n.reads = append(n.reads, pendingRead{rctx: rctx, key: g.Key, inv: ctx.EventIndex()})
	n.rn.ReadIndex([]byte(rctx))
	if n.retry {
		ctx.SetTimer(timerRetry, ReadRetry{})
	}
}

// retryReads asks raft again for the read index of every read still
// waiting for one, with the read's own request context: etcd's server
// does the same when a ReadIndex request gets no answer within its retry
// interval (its linearizable read loop resends the request with the same
// request ID). The timer stays armed while such reads wait.
func (n *Member) retryReads(ctx *record.Context) {
	waiting := false
	for _, r := range n.reads {
		if !r.ready {
			n.rn.ReadIndex([]byte(r.rctx))
			waiting = true
		}
	}
	if waiting {
		ctx.SetTimer(timerRetry, ReadRetry{})
	}
}

// readStates gives the waiting Gets the read indices raft returned.
func (n *Member) readStates(rss []raft.ReadState) {
	for _, rs := range rss {
		for i := range n.reads {
			if n.reads[i].rctx == string(rs.RequestCtx) {
				n.reads[i].index, n.reads[i].ready = rs.Index, true
			}
		}
	}
}

// serveReads answers every Get whose read index the member has applied.
func (n *Member) serveReads(ctx *record.Context) {
	kept := n.reads[:0]
	for _, r := range n.reads {
		if r.ready && r.index <= n.applied {
			n.answer(ctx, r)
			continue
		}
		kept = append(kept, r)
	}
	n.reads = kept
}

// answer reads the key-value store and records the completed Get.
func (n *Member) answer(ctx *record.Context, r pendingRead) {
	v, ok := n.kv[r.key]
	recordOp(ctx, clientOp{Read: true, Key: r.key, Value: v, Absent: !ok, Inv: r.inv, Resp: ctx.EventIndex()})
}
