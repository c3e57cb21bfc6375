package raft_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// scenario drives a Raft run by hand: each step delivers the one pending
// message that matches (its receiver, and its message as formatted), so a
// test can build a state the fuzzer rarely reaches and check the bound
// there against a continuation it spells out.
type scenario struct {
	t   *testing.T
	sys *record.System
	sim *record.Sim
}

func newScenario(t *testing.T, opts record.Options) *scenario {
	t.Helper()
	sys := raft.System()
	sim, err := record.NewSim(sys, opts, 1)
	require.NoError(t, err)
	for _, e := range raft.Setup(sim.Options()) {
		require.NoError(t, sim.Apply(e))
	}
	return &scenario{t: t, sys: sys, sim: sim}
}

// deliver delivers the pending message to `to` whose formatted text
// starts with msg (the first in send order).
func (s *scenario) deliver(to record.ActorID, msg string) {
	s.t.Helper()
	for _, p := range s.sim.Enabled(nil) {
		if p.To == to && len(record.FormatMessage(p.Msg)) >= len(msg) && record.FormatMessage(p.Msg)[:len(msg)] == msg {
			require.NoError(s.t, s.sim.Deliver(p.ID))
			require.Nil(s.t, s.sim.Halted())
			return
		}
	}
	var have []string
	for _, p := range s.sim.Enabled(nil) {
		have = append(have, fmt.Sprintf("%s->%s %s", p.From, p.To, record.FormatMessage(p.Msg)))
	}
	s.t.Fatalf("no pending %s to %s among %v", msg, to, have)
}

func (s *scenario) apply(e record.Event) {
	s.t.Helper()
	require.NoError(s.t, s.sim.Apply(e))
}

// bound is the system's bound on the state for want, with future to come.
func (s *scenario) bound(want string, future []record.Event, subsets bool) int {
	return s.sys.LowerBound(record.Goal{View: s.sim.View(), InFlight: s.sim.InFlight(),
		Want: &record.Violation{Fingerprint: want}, Future: future, CountExternals: subsets})
}

// TestLowerBoundLeaderNowLeadsAgain: the leader that must lack a committed
// entry (LeaderCompleteness(x)) may be a leader now, of an old term, while
// another member commits in a newer term; x then steps down and is
// elected again. raft-66 (the truncating follower lets x win without the
// entry): raft-2 leads term 1, raft-3 leads term 2 with an entry raft-1
// stores; from there six deliveries show LeaderCompleteness(raft-2).
func TestLowerBoundLeaderNowLeadsAgain(t *testing.T) {
	s := newScenario(t, record.Options{raft.Bug66: "true", "members": "3"})
	for _, id := range []record.ActorID{"raft-1", "raft-2", "raft-3"} {
		s.deliver(id, "Bootstrap")
	}
	s.deliver("raft-2", "ElectionTimeout")
	s.deliver("raft-1", "RequestVote{t1 raft-2")
	s.deliver("raft-2", "Vote{t1 granted}") // raft-2 leads term 1
	s.deliver("raft-3", "ElectionTimeout")
	s.deliver("raft-3", "ElectionTimeout")
	s.deliver("raft-1", "RequestVote{t2 raft-3")
	s.deliver("raft-3", "Vote{t2 granted}") // raft-3 leads term 2
	s.apply(record.SendEvent("raft-3", raft.ClientCommand{Cmd: 7}))
	s.deliver("raft-3", "ClientCommand")
	s.deliver("raft-1", "AppendEntries{t2 raft-3 prev=0/t0 entries=[2:7]")
	const want = "LeaderCompleteness(raft-2)"
	state := s.sim.Fork()
	for _, subsets := range []bool{false, true} {
		for _, future := range [][]record.Event{nil, {record.SendEvent("raft-1", raft.ClientCommand{Cmd: 8})}} {
			h := s.bound(want, future, subsets)
			require.LessOrEqual(t, h, 6, "subsets %v, future %v: the bound exceeds the six deliveries below", subsets, future)
		}
	}
	s.deliver("raft-3", "AppendEntriesResponse{t2 ok match=1}")         // raft-3 commits 2:7
	s.deliver("raft-1", "AppendEntries{t2 raft-3 prev=0/t0 entries=[]") // truncates raft-1's log
	s.deliver("raft-2", "RequestVote{t2 raft-3")                        // raft-2 steps down
	s.deliver("raft-2", "ElectionTimeout")
	s.deliver("raft-1", "RequestVote{t3 raft-2")
	s.deliver("raft-2", "Vote{t3 granted}")
	v := s.sim.Check()
	require.NotNil(t, v)
	require.Equal(t, want, v.Fingerprint)
	require.Equal(t, 6, s.sim.NumDeliveries()-state.NumDeliveries())
}

// TestLowerBoundCommitInFlightFromADeadLeader: nobody running holds an
// entry or has committed, no client command is in flight or to come, and
// yet an AppendEntries in flight from a leader killed for good carries an
// entry and its commit: the follower that gets it commits without any
// client command. raft-66: raft-1 commits 1:7 with raft-2 and resends it
// with the commit to raft-3, is killed; an old heartbeat truncates
// raft-2. Five deliveries then show LeaderCompleteness(raft-2).
func TestLowerBoundCommitInFlightFromADeadLeader(t *testing.T) {
	s := newScenario(t, record.Options{raft.Bug66: "true", "members": "3"})
	for _, id := range []record.ActorID{"raft-1", "raft-2", "raft-3"} {
		s.deliver(id, "Bootstrap")
	}
	s.deliver("raft-1", "ElectionTimeout")
	s.deliver("raft-2", "RequestVote{t1 raft-1")
	s.deliver("raft-1", "Vote{t1 granted}") // raft-1 leads term 1
	s.apply(record.SendEvent("raft-1", raft.ClientCommand{Cmd: 7}))
	s.deliver("raft-1", "ClientCommand")
	s.deliver("raft-2", "AppendEntries{t1 raft-1 prev=0/t0 entries=[1:7]")
	s.deliver("raft-1", "AppendEntriesResponse{t1 ok match=1}") // raft-1 commits 1:7
	s.deliver("raft-1", "Heartbeat")
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=1/t1 entries=[] commit=1}")
	s.deliver("raft-1", "AppendEntriesResponse{t1 reject") // resends 1:7 with commit=1 to raft-3
	s.apply(record.KillEvent("raft-1"))
	s.deliver("raft-2", "AppendEntries{t1 raft-1 prev=0/t0 entries=[] commit=0}") // truncates raft-2
	const want = "LeaderCompleteness(raft-2)"
	before := s.sim.NumDeliveries()
	for _, subsets := range []bool{false, true} {
		h := s.bound(want, nil, subsets)
		require.LessOrEqual(t, h, 5, "subsets %v: the bound exceeds the five deliveries below", subsets)
	}
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=0/t0 entries=[1:7] commit=1}") // raft-3 commits 1:7
	s.deliver("raft-3", "AppendEntries{t1 raft-1 prev=0/t0 entries=[] commit=0}")    // truncates raft-3
	s.deliver("raft-2", "ElectionTimeout")
	s.deliver("raft-3", "RequestVote{t2 raft-2")
	s.deliver("raft-2", "Vote{t2 granted}")
	v := s.sim.Check()
	require.NotNil(t, v)
	require.Equal(t, want, v.Fingerprint)
	require.Equal(t, 5, s.sim.NumDeliveries()-before)
}
