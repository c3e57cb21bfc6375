package raft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// exactCost is the cheapest continuation from the scenario's state that
// shows want, with future to come (counting external events too with
// subsets): an optimum search with the system's bound off, up to
// budget; -1 when none costs that little.
func (s *scenario) exactCost(want string, future []record.Event, subsets bool, budget int) int {
	s.t.Helper()
	at := s.sim.Trace(record.Want(want))
	at.Events = append(at.Events, future...)
	cfg := optimal.Config{MaxDeliveries: budget, NoLowerBound: true, MaxStates: 2_000_000}
	if subsets {
		cfg.Subsets, cfg.TotalBound = true, budget
	}
	res, err := optimal.SearchFrom(context.Background(), s.sys, at, len(at.Events)-len(future), cfg)
	require.NoError(s.t, err)
	require.True(s.t, res.Exhausted, "the exact search did not finish")
	if res.Trace == nil {
		return -1
	}
	// The result counts the whole trace, the state's prefix too.
	cost := res.Deliveries - s.sim.NumDeliveries()
	if subsets {
		cost += res.Externals - s.sim.NumExternals()
	}
	return cost
}

// oneLeaderTwoCommands builds, under raft-58b with three members, the
// state where raft-3 leads term 1 with [1:101 1:102], raft-2 holds
// [1:101], and raft-1, bootstrapped late with an empty log, has the
// AppendEntries for raft-3's second entry in flight (prevLogIndex 1,
// which raft-1 cannot check against its empty log: raft-58b).
func oneLeaderTwoCommands(t *testing.T, opts record.Options) *scenario {
	opts[raft.Bug58b], opts["members"] = "true", "3"
	s := newScenario(t, opts)
	s.deliver("raft-2", "Bootstrap")
	s.deliver("raft-3", "Bootstrap")
	s.deliver("raft-3", "ElectionTimeout")
	s.deliver("raft-2", "RequestVote{t1 raft-3")
	s.deliver("raft-3", "Vote{t1 granted}") // raft-3 leads term 1
	s.apply(record.SendEvent("raft-3", raft.ClientCommand{Cmd: 101}))
	s.deliver("raft-3", "ClientCommand")
	s.deliver("raft-2", "AppendEntries{t1 raft-3 prev=0/t0 entries=[]")
	s.deliver("raft-2", "AppendEntries{t1 raft-3 prev=0/t0 entries=[1:101]") // raft-2: [1:101]
	s.deliver("raft-1", "RequestVote{t1 raft-3")                             // ignored: not bootstrapped
	s.deliver("raft-1", "AppendEntries{t1 raft-3 prev=0/t0 entries=[]")      // ignored
	s.deliver("raft-1", "AppendEntries{t1 raft-3 prev=0/t0 entries=[1:101]") // ignored
	s.apply(record.SendEvent("raft-3", raft.ClientCommand{Cmd: 102}))
	s.deliver("raft-3", "ClientCommand") // raft-3: [1:101 1:102]
	s.deliver("raft-1", "Bootstrap")
	require.Nil(t, s.sim.Check())
	return s
}

// TestLogMatchingBoundSameIndexDiffers: Log Matching breaks as soon as
// two logs hold different entries of one term at one index (the
// invariant's first differing index may be the index of the common
// term), so a log of one entry may already be long enough. Here raft-2
// holds [1:101] and one delivery gives raft-1 [1:102]: the bound must
// be 1, not 2 (a change to each log shorter than 2). A bound that
// assumes the logs differ below the common term's index fails here.
func TestLogMatchingBoundSameIndexDiffers(t *testing.T) {
	const want = "LogMatching(raft-1,raft-2)"
	s := oneLeaderTwoCommands(t, record.Options{})
	for _, subsets := range []bool{false, true} {
		require.Equal(t, 1, s.bound(want, nil, subsets), "subsets %v", subsets)
		require.Equal(t, 1, s.exactCost(want, nil, subsets, 1), "subsets %v", subsets)
	}
	s.deliver("raft-1", "AppendEntries{t1 raft-3 prev=1/t1 entries=[1:102]") // raft-1: [1:102]
	v := s.sim.Check()
	require.NotNil(t, v)
	require.Equal(t, want, v.Fingerprint)
	require.Equal(t, "raft-1 and raft-2 both hold an entry of term 1 at index 1, but differ at index 1 (1:102 vs 1:101)", v.Detail)
}

// TestLogMatchingBoundOneEntryNeedsNoLeader: the same state after raft-2
// times out (a candidate of term 2: no leader of a term at least its own,
// no AppendEntries of such a term in flight to it). raft-2's log of one
// entry needs no change, so no election either: still one delivery. A
// bound that asks an election of every log shorter than 2 says 4 here.
func TestLogMatchingBoundOneEntryNeedsNoLeader(t *testing.T) {
	const want = "LogMatching(raft-1,raft-2)"
	s := oneLeaderTwoCommands(t, record.Options{})
	s.deliver("raft-2", "ElectionTimeout") // raft-2: candidate of term 2
	for _, subsets := range []bool{false, true} {
		for _, future := range [][]record.Event{nil, {record.SendEvent("raft-2", raft.ClientCommand{Cmd: 103})}} {
			require.Equal(t, 1, s.bound(want, future, subsets), "subsets %v, future %v", subsets, future)
			require.Equal(t, 1, s.exactCost(want, future, subsets, 1), "subsets %v, future %v", subsets, future)
		}
	}
	s.deliver("raft-1", "AppendEntries{t1 raft-3 prev=1/t1 entries=[1:102]")
	v := s.sim.Check()
	require.NotNil(t, v)
	require.Equal(t, want, v.Fingerprint)
}
