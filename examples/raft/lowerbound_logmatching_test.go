package raft_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// TestLogMatchingBoundOneLeaderTwoCommands: with two different commands,
// one leader is enough for LogMatching under raft-58b, so the bound may
// not ask for a second term. raft-1 leads term 1 and appends 1:101 and
// 1:102; its first AppendEntries reach raft-3 before its Bootstrap (they
// and its RequestVote are ignored), so raft-3 takes 1:102 at index 1
// (prevLogIndex 1 is not checked against an empty log): [1:102] against
// [1:101 1:102], two entries of term 1 that differ at index 1. Along
// this run the bound stays at or below what is left; counting a missing
// term where only a missing entry value is needed fails here.
func TestLogMatchingBoundOneLeaderTwoCommands(t *testing.T) {
	s := newScenario(t, record.Options{raft.Bug58b: "true", "members": "3"})
	s.deliver("raft-1", "Bootstrap")
	s.deliver("raft-2", "Bootstrap")
	s.deliver("raft-1", "ElectionTimeout")
	s.deliver("raft-2", "RequestVote{t1 raft-1")
	s.deliver("raft-1", "Vote{t1 granted}") // raft-1 leads term 1
	s.apply(record.SendEvent("raft-1", raft.ClientCommand{Cmd: 101}))
	s.deliver("raft-1", "ClientCommand")
	s.deliver("raft-3", "RequestVote{t1 raft-1")                             // ignored: not bootstrapped
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=0/t0 entries=[]")      // ignored
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=0/t0 entries=[1:101]") // ignored
	s.apply(record.SendEvent("raft-1", raft.ClientCommand{Cmd: 102}))
	s.deliver("raft-1", "ClientCommand") // raft-1: [1:101 1:102]
	s.deliver("raft-3", "Bootstrap")
	require.Nil(t, s.sim.Check())
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=1/t1 entries=[1:102]") // raft-3: [1:102]
	v := s.sim.Check()
	require.NotNil(t, v)
	require.Equal(t, "LogMatching(raft-1,raft-3)", v.Fingerprint)
	tr := s.sim.Trace(v)
	for _, subsets := range []bool{false, true} {
		bounds, costs := demitest.LowerBoundAlong(t, s.sys, tr, subsets)
		for k := range bounds {
			require.LessOrEqual(t, bounds[k], costs[k], "state after %d events (subsets %v)", k, subsets)
		}
	}
}

// TestLogMatchingBoundAlongMinTrace pins the bound (deliveries plus
// external events) at every state of testdata/raft-58b-two-leaders.trace
// (the shipped raft-58b.min.trace until the gather stage took it to the
// one-leader route, 21 deliveries (E:8), two leaders) with its commands
// set to Cmd 0 (sameCommands; the route does not need them different):
// there, two different entries need two terms, and the bound counts the
// election of the missing one. A change to the LogMatching bound shows
// here (and must keep every value at or below what is left, which
// TestLowerBoundAdmissible checks).
func TestLogMatchingBoundAlongMinTrace(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	tr, sys, err := record.ReadFile(filepath.Join("testdata", "raft-58b-two-leaders.trace"), cat)
	require.NoError(t, err)
	sameCommands(tr)
	bounds, costs := demitest.LowerBoundAlong(t, sys, tr, true)
	require.Len(t, costs, 30)
	want := []int{2, 5, 8, 12, 11, 10, 10, 9, 8, 8, 7, 6, 7, 7, 6, 6, 6, 5, 4, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	assert.Equal(t, want, bounds)
}

// sameCommands sets the Cmd of every client command of tr to 0, in its
// sends and deliveries. The shipped minimized traces keep different
// commands different (shrink-contents renames values to 0, 1, ...); with
// one value, two entries of one term are the same entry, the case the
// bound's "every Cmd is the same" branch is about.
func sameCommands(tr *record.Trace) {
	for i, e := range tr.Events {
		if c, ok := e.Msg.(raft.ClientCommand); ok {
			c.Cmd = 0
			tr.Events[i].Msg = c
		}
	}
}
