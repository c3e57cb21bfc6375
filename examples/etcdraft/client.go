package etcdraft

import (
	"slices"
	"strconv"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// The client side of a member: the Puts it proposed and the Gets it is
// serving, and the history of client operations it records as ghost state
// (kvapp.KeyOps in stable storage) for the Linearizability invariant. An
// operation is invoked when the member receives the client's request and
// completes when the member answers it: a Put when the member applies the
// entry it proposed, a Get when the member has applied the log up to the
// read index raft gave it. Event indices (record.Context.EventIndex) are
// the run's clock. A crash loses the requests in progress, as a real
// server's crash does: their clients never get an answer.

// proposal is a Put waiting for its entry to be applied.
type proposal struct {
	data string
	op   int // its kvapp.Op in the history
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

// propose records the invocation of a Put and proposes it to raft (which
// drops it when no leader is known: the client then gets no answer).
func (n *Member) propose(ctx *record.Context, p Put) {
	data := kvapp.Command(p.Key, p.Value)
	i := kvapp.Record(ctx, kvapp.Op{Key: p.Key, Value: p.Value, Absent: p.Value == "", Inv: ctx.EventIndex()})
	if n.rn.Propose(data) == nil {
		n.proposals = append(n.proposals, proposal{data: string(data), op: i})
	}
}

// completePut answers the first waiting Put whose command is e's: the
// member has applied it.
func (n *Member) completePut(ctx *record.Context, e *raftpb.Entry) {
	k := slices.IndexFunc(n.proposals, func(p proposal) bool { return p.data == string(e.GetData()) })
	if k < 0 {
		return
	}
	p := n.proposals[k]
	n.proposals = slices.Delete(n.proposals, k, k+1)
	st := ctx.Storage()
	l := kvapp.Stored(st)
	l.Ops[p.op].Resp = ctx.EventIndex()
	l.Ops[p.op].Index = e.GetIndex()
	st.Put(kvapp.KeyOps, l)
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
// request ID). The timer stays armed while such reads wait. It is what
// reaches the stale read index bug of go.etcd.io/raft/v3 v3.6.0
// (docs/real-bugs.md).
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
	kvapp.Record(ctx, kvapp.Op{Read: true, Key: r.key, Value: v, Absent: !ok, Inv: r.inv, Resp: ctx.EventIndex()})
}
