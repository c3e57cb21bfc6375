package paxos

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// DeepCopy copies the member for a forked run (record.DeepCopier), faster
// than the reflective copy it stands in for; TestDeepCopy checks it
// against reflection on the states of fuzzed runs.
func (n *Node) DeepCopy() any {
	c := *n
	c.members = slices.Clone(n.members)
	c.promises = slices.Clone(n.promises)
	c.accepts = slices.Clone(n.accepts)
	return &c
}

var _ record.DeepCopier = (*Node)(nil)
