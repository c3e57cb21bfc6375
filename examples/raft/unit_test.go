package raft

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

func TestMode(t *testing.T) {
	cases := []struct {
		vals []int
		want int
	}{
		{[]int{0, 0, 0, 0}, 0},
		{[]int{3, 3, 1, 0}, 3},
		{[]int{3, 1, 1, 0}, 1},
		{[]int{2, 2, 0, 0}, 2}, // ties: the highest
		{[]int{3, 2, 1, 0}, 3}, // all different: the highest, held by one member
		{[]int{5}, 5},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, mode(tc.vals), "mode(%v)", tc.vals)
	}
}

func TestBootstrapShrinks(t *testing.T) {
	b := Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3"}}
	var _ record.Shrinkable = b
	assert.Equal(t, 3, b.Components())
	cases := []struct {
		drop int
		want []record.ActorID
	}{
		{0, []record.ActorID{"raft-2", "raft-3"}},
		{1, []record.ActorID{"raft-1", "raft-3"}},
		{2, []record.ActorID{"raft-1", "raft-2"}},
		{7, []record.ActorID{"raft-1", "raft-2", "raft-3"}}, // out of range: unchanged copy
	}
	for _, tc := range cases {
		got := b.WithoutComponent(tc.drop).(Bootstrap)
		assert.Equal(t, tc.want, got.Members, "without %d", tc.drop)
	}
	assert.Len(t, b.Members, 3, "the original is not modified")
}

func TestMessageHooks(t *testing.T) {
	clocked := []struct {
		msg  record.Message
		term int
	}{
		{RequestVote{Term: 3}, 3},
		{Vote{Term: 4}, 4},
		{AppendEntries{Term: 5}, 5},
		{AppendEntriesResponse{Term: 6}, 6},
		{Heartbeat{Term: 7}, 7},
		{RetryVotes{Term: 8}, 8},
		{InitLeader{Term: 9}, 9},
	}
	for _, tc := range clocked {
		c, ok := tc.msg.(record.Clocked)
		require.True(t, ok, "%T is Clocked", tc.msg)
		assert.Equal(t, tc.term, c.LogicalClock())
	}
	var adv record.Message = ElectionTimeout{}
	a, ok := adv.(record.ClockAdvancer)
	require.True(t, ok)
	assert.True(t, a.AdvancesClock())
	round, phase := record.Message(AppendEntries{Term: 2}).(record.Rounded).Round()
	assert.Equal(t, 2, round)
	assert.Equal(t, phaseAppend, phase)
	_, ok = record.Message(ClientCommand{}).(record.Clocked)
	assert.False(t, ok, "client commands carry no term")
}

func TestSystemOptions(t *testing.T) {
	sys := System()
	assert.Equal(t, BugNames(), sys.Bugs())
	cases := []struct {
		opts    record.Options
		members int
		network record.Semantics
		wantErr bool
	}{
		{record.Options{}, 4, record.FIFO, false},
		{record.Options{OptMembers: "5"}, 5, record.FIFO, false},
		{record.Options{Bug66: "true"}, 4, record.Unordered, false},
		{record.Options{OptUnordered: "true"}, 4, record.Unordered, false},
		{record.Options{OptMembers: "many"}, 0, 0, true},
		{record.Options{Bug45: "yes please"}, 0, 0, true},
		{record.Options{OptRestartWeight: "x"}, 0, 0, true},
		{record.Options{"nope": "1"}, 0, 0, true},
	}
	for _, tc := range cases {
		sim, err := record.NewSim(sys, tc.opts, 1)
		if tc.wantErr {
			assert.Error(t, err, "%v", tc.opts)
			continue
		}
		require.NoError(t, err, "%v", tc.opts)
		assert.Len(t, sim.Members(), tc.members)
		assert.Equal(t, tc.network, sim.Semantics())
	}
}

// node builds a bootstrapped member with the given state, for invariant
// tests.
func node(id string, role Role, term int, log []Entry, led []int, committed ...Committed) *Node {
	n := &Node{id: record.ActorID(id), role: role, term: term, log: log, ledTerms: led, committed: committed}
	n.setMembers([]record.ActorID{"raft-1", "raft-2", "raft-3"})
	return n
}

func TestInvariants(t *testing.T) {
	e := func(term, cmd int) Entry { return Entry{Term: term, Cmd: cmd} }
	cases := []struct {
		name  string
		nodes []*Node
		want  string
	}{
		{"healthy cluster", []*Node{
			node("raft-1", Leader, 2, []Entry{e(1, 1), e(2, 2)}, []int{2}, Committed{e(1, 1), 1}),
			node("raft-2", Follower, 2, []Entry{e(1, 1)}, []int{1}, Committed{e(1, 1), 2}),
			node("raft-3", Follower, 2, nil, nil),
		}, ""},
		{"two leaders of one term, one stepped down", []*Node{
			node("raft-1", Follower, 3, nil, []int{1, 3}),
			node("raft-2", Follower, 3, nil, []int{2}),
			node("raft-3", Leader, 3, nil, []int{3}),
		}, "ElectionSafety(raft-1,raft-3)"},
		{"same index and term after a difference", []*Node{
			node("raft-1", Follower, 3, []Entry{e(1, 1), e(3, 3)}, nil),
			node("raft-2", Follower, 3, []Entry{e(2, 2), e(3, 3)}, nil),
			node("raft-3", Follower, 3, nil, nil),
		}, "LogMatching(raft-1,raft-2)"},
		{"different command, same term", []*Node{
			node("raft-1", Follower, 3, []Entry{e(1, 1)}, nil),
			node("raft-2", Follower, 3, nil, nil),
			node("raft-3", Follower, 3, []Entry{e(1, 2)}, nil),
		}, "LogMatching(raft-1,raft-3)"},
		{"diverging logs of different terms are fine", []*Node{
			node("raft-1", Follower, 3, []Entry{e(1, 1), e(1, 2)}, nil),
			node("raft-2", Follower, 3, []Entry{e(2, 5)}, nil),
		}, ""},
		{"leader of a later term lacks a committed entry", []*Node{
			node("raft-1", Follower, 1, []Entry{e(1, 1)}, []int{1}, Committed{e(1, 1), 1}),
			node("raft-2", Leader, 2, nil, []int{2}),
		}, "LeaderCompleteness(raft-2)"},
		{"leader of the commit's term may still be catching up", []*Node{
			node("raft-1", Follower, 2, []Entry{e(1, 1)}, nil, Committed{e(1, 1), 2}),
			node("raft-2", Leader, 2, nil, []int{2}),
		}, ""},
		{"members applied different entries", []*Node{
			node("raft-1", Follower, 2, []Entry{e(1, 1)}, nil, Committed{e(1, 1), 1}),
			node("raft-2", Follower, 2, []Entry{e(2, 2)}, nil, Committed{e(2, 2), 2}),
		}, "StateMachineSafety(raft-1,raft-2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v *record.Violation
			for _, check := range []func([]*Node) *record.Violation{electionSafety, logMatching, leaderCompleteness, stateMachineSafety} {
				if v = check(tc.nodes); v != nil {
					break
				}
			}
			if tc.want == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			assert.Equal(t, tc.want, v.Fingerprint)
			assert.NotEmpty(t, v.Detail)
		})
	}
}

// TestCrashRestartKeepsPersistentState elects a leader, crash-restarts it
// and checks that term, vote, log and membership survive while the role
// does not.
func TestCrashRestartKeepsPersistentState(t *testing.T) {
	sim, err := record.NewSim(System(), nil, 1)
	require.NoError(t, err)
	b := &builder{ctx: context.Background(), sim: sim}
	b.start(1, 2, 3, 4)
	b.bootstrap(1, 2, 3, 4)
	b.elect(1, 2, 3)
	b.command(1, 7)
	b.apply(record.RestartEvent(r(1)))
	require.NoError(t, b.err)
	n := sim.View().Actor(r(1)).(*Node)
	assert.Equal(t, 1, n.Term())
	assert.Equal(t, r(1), n.votedFor)
	assert.Equal(t, []Entry{{Term: 1, Cmd: 7}}, n.Log())
	assert.True(t, n.Bootstrapped())
	assert.Equal(t, Follower, n.Role())
	assert.Equal(t, 0, n.CommitIndex())
	assert.Equal(t, []int{1}, n.ledTerms, "ghost history survives too")
}

// TestFuzzIsDeterministic: the same seed gives the same trace, byte for
// byte, with faults on both networks.
func TestFuzzIsDeterministic(t *testing.T) {
	for _, opts := range []record.Options{
		{OptRestartWeight: "5", OptPartitionWeight: "5", OptKillWeight: "2"},
		{OptUnordered: "true", OptRestartWeight: "5"},
	} {
		var prev []byte
		for i := 0; i < 3; i++ {
			tr, err := record.Fuzz(context.Background(), System(), opts, record.FuzzConfig{Seed: 42, MaxSteps: 1500})
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, tr.Encode(&buf))
			if prev != nil {
				assert.Equal(t, prev, buf.Bytes())
			}
			prev = buf.Bytes()
		}
	}
}

func TestReferenceUnknownBug(t *testing.T) {
	_, err := Reference(context.Background(), "raft-99")
	assert.ErrorContains(t, err, "raft-99")
}

// TestReferencesNeedTheirBug runs every reference schedule on the correct
// Raft (and with the network the bug's trace used): it either cannot be
// followed (a message it delivers is never sent) or ends without a
// violation.
func TestReferencesNeedTheirBug(t *testing.T) {
	for _, bug := range BugNames() {
		t.Run(bug, func(t *testing.T) {
			opts := record.Options{}
			if bug == Bug66 {
				opts[OptUnordered] = "true"
			}
			_, err := buildReference(context.Background(), bug, opts)
			require.Error(t, err)
			t.Log(err)
		})
	}
}

func TestHardSystem(t *testing.T) {
	sys := HardSystem()
	assert.Equal(t, "raft-hard", sys.Name)
	assert.Equal(t, append(BugNames(), HardBugNames()...), sys.Bugs())
	assert.Equal(t, BugNames(), System().Bugs(), "raft's own options stay as they were")
}
