package raft

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// DeepCopy copies the member for a forked run (record.DeepCopier): the
// exhaustive search (package optimal) copies a member at every delivery,
// and this is several times faster than the reflective copy it stands in
// for. Every field is copied; TestDeepCopy checks it against reflection
// on the states of fuzzed runs.
func (n *Node) DeepCopy() any {
	c := *n
	c.members = slices.Clone(n.members)
	c.log = slices.Clone(n.log)
	c.ledTerms = slices.Clone(n.ledTerms)
	c.votes = slices.Clone(n.votes)
	c.committed = slices.Clone(n.committed)
	c.nextIndex = slices.Clone(n.nextIndex)
	c.matchIndex = slices.Clone(n.matchIndex)
	return &c
}

// DeepCopy copies the stored state (record.DeepCopier; Storage copies
// every value it stores and returns).
func (p persistent) DeepCopy() any {
	p.Log = slices.Clone(p.Log)
	p.Members = slices.Clone(p.Members)
	p.LedTerms = slices.Clone(p.LedTerms)
	return p
}

var (
	_ record.DeepCopier = (*Node)(nil)
	_ record.DeepCopier = persistent{}
)
