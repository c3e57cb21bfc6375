package kvapp

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// The clients' operations a member served, recorded as ghost state in its
// stable storage (KeyOps) for the Linearizability invariant. An operation
// is invoked when the member receives the client's request and completes
// when the member answers it: a write when the member applies the entry
// it proposed, a read when the member has applied the log up to the read
// index raft gave it. Event indices (record.Context.EventIndex) are the
// run's clock.

// KeyOps is the stable-storage key of a member's history (an OpLog).
const KeyOps = "ghost/ops"

// Op is one client operation in a member's history.
type Op struct {
	Read bool
	Key  string
	// Value is what a write wrote or a read returned; Absent marks a
	// delete or a read of a missing key.
	Value  string
	Absent bool
	// Inv and Resp are the event indices of the request's arrival and of
	// the answer (Resp is 0 for a write not answered yet).
	Inv, Resp int
	// Index is the log index of a completed write's entry.
	Index uint64
}

// OpLog is a member's history as stable storage keeps it, with the number
// of reads in it (the Linearizability invariant has nothing to check in a
// run without reads, and learns it without scanning the histories).
// Storage copies what it stores and what it returns; an Op holds no
// references, so DeepCopy is one copy of the slice (the reflective copy it
// replaces costs several allocations per member event that records an
// operation).
type OpLog struct {
	Ops   []Op
	Reads int
}

// DeepCopy implements record.DeepCopier.
func (l OpLog) DeepCopy() any { return OpLog{slices.Clone(l.Ops), l.Reads} }

// Getter reads stable storage: a record.Storage, or a record.StoredView
// as invariants see it.
type Getter interface {
	Get(key string) (any, bool)
}

// Stored returns a member's history and its number of reads.
func Stored(st Getter) OpLog {
	v, _ := st.Get(KeyOps)
	l, _ := v.(OpLog)
	return l
}

// History returns a member's client operations.
func History(st Getter) []Op { return Stored(st).Ops }

// Record appends op to the member's history and returns its position.
func Record(ctx *record.Context, op Op) int {
	st := ctx.Storage()
	l := Stored(st)
	l.Ops = append(l.Ops, op)
	if op.Read {
		l.Reads++
	}
	st.Put(KeyOps, l)
	return len(l.Ops) - 1
}
