package etcdraft

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// DeepCopy copies the member for a forked run (record.DeepCopier), which
// minimize's forked checks and demi optimal's search make. A copy field by
// field would not do on its own: the RawNode's raft keeps its tick
// function as a method value bound to itself (tickElection or
// tickHeartbeat, by role), so the copy's ticks would tick the original.
// record.CopyOnto copies the whole state and binds that method value to
// the copy's raft instead (it fails, here and in TestDeepCopy, on a
// release of raft with other functions in its state, rather than fork
// wrongly). Pending writes are data (pending), not closures, for the same
// reason.
func (n *Member) DeepCopy() any {
	c := &Member{}
	if err := record.CopyOnto(c, n); err != nil {
		panic(fmt.Sprintf("etcdraft: member %s cannot be copied: %v", n.id, err))
	}
	return c
}

var _ record.DeepCopier = (*Member)(nil)
