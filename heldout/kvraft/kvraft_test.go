package kvraft_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"

	"github.com/demi-project/demi/heldout/kvraft"
)

var bug = record.Options{kvraft.BugReapplyAfterRestart: "true"}

// TestApply checks the state machine: puts overwrite, appends extend,
// empty and unreadable entries do nothing, and the digest is canonical.
func TestApply(t *testing.T) {
	kv := kvraft.KV{}
	for _, d := range [][]byte{
		kvraft.Command("put", "a", "1"), {}, kvraft.Command("append", "a", "2"),
		kvraft.Command("append", "b", "3"), []byte("bogus"), kvraft.Command("put", "b", "x y"),
	} {
		kv.Apply(d)
	}
	assert.Equal(t, kvraft.KV{"a": "12", "b": "x y"}, kv)
	assert.Equal(t, "a=12 b=x y", kv.Digest())
	assert.Equal(t, "a=12 b=x y", kvraft.KV{"b": "x y", "a": "12"}.Digest())

	again := kvraft.KV{"a": "12"}
	again.Apply(kvraft.Command("append", "a", "2"))
	assert.Equal(t, "122", again["a"], "an append applied twice shows")
}

func newSim(t *testing.T, opts record.Options) *record.Sim {
	t.Helper()
	s, err := record.NewSim(kvraft.System(), opts, 1)
	require.NoError(t, err)
	for _, id := range s.Members() {
		require.NoError(t, s.Apply(record.StartEvent(id)))
	}
	return s
}

// settle delivers ordinary messages (no timers), the oldest first, until
// none is left, checking the invariant after each.
func settle(t *testing.T, s *record.Sim) {
	t.Helper()
	for range 1000 {
		delivered := false
		for _, p := range s.Enabled(nil) {
			if p.Timer == "" {
				require.NoError(t, s.Deliver(p.ID))
				require.Nil(t, s.Check())
				delivered = true
				break
			}
		}
		if !delivered {
			return
		}
	}
	t.Fatal("messages never stopped")
}

func fire(t *testing.T, s *record.Sim, id record.ActorID, key string) {
	t.Helper()
	for _, p := range s.Enabled(nil) {
		if p.To == id && p.Timer == key {
			require.NoError(t, s.Deliver(p.ID))
			return
		}
	}
	t.Fatalf("no timer %q at %s", key, id)
}

func member(s *record.Sim, id record.ActorID) *kvraft.Member {
	return s.View().Actor(id).(*kvraft.Member)
}

// writeThenRestart elects kv-1, commits two Appends everywhere (sent to a
// follower and to the leader),
// then crash-restarts kv-1.
func writeThenRestart(t *testing.T, opts record.Options) *record.Sim {
	s := newSim(t, opts)
	fire(t, s, "kv-1", "campaign")
	settle(t, s)
	require.NoError(t, s.Apply(record.SendEvent("kv-2", kvraft.Append{Key: "a", Value: "1"})))
	require.NoError(t, s.Apply(record.SendEvent("kv-1", kvraft.Append{Key: "a", Value: "2"})))
	settle(t, s)
	fire(t, s, "kv-1", "tick") // the heartbeat tells the followers the commit index
	settle(t, s)
	for _, id := range s.Members() {
		kv, _ := member(s, id).Map()
		require.Equal(t, kvraft.KV{"a": "21"}, kv, "%s", id)
	}
	require.NoError(t, s.Apply(record.RestartEvent("kv-1")))
	return s
}

// TestRestartRecovers: a restarted member reads back its map and applied
// index, and answers a Get with the latest value.
func TestRestartRecovers(t *testing.T) {
	s := writeThenRestart(t, nil)
	require.Nil(t, s.Check())
	kv, applied := member(s, "kv-1").Map()
	assert.Equal(t, kvraft.KV{"a": "21"}, kv)
	assert.EqualValues(t, 4, applied, "bootstrap 1, the leader's empty entry 2, the writes 3 and 4")

	fire(t, s, "kv-2", "campaign")
	settle(t, s)
	require.NoError(t, s.Apply(record.SendEvent("kv-1", kvraft.Get{Key: "a"})))
	settle(t, s)
	require.Nil(t, s.Check())
	assert.Equal(t, []kvraft.Answer{{Key: "a", Value: "21", Index: 5}}, member(s, "kv-1").Answers())
}

// TestReapplyAfterRestart: with the bug, the restarted member applies the
// committed entries again on top of its restored map.
func TestReapplyAfterRestart(t *testing.T) {
	s := writeThenRestart(t, bug)
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "AppliedState(kv-1)", v.Fingerprint, v.Detail)
	kv, _ := member(s, "kv-1").Map()
	assert.Equal(t, kvraft.KV{"a": "2121"}, kv, "appends 3 and 4 applied again: the leader's own append was first")
}

// TestNoViolationWithoutBug fuzzes the correct store.
func TestNoViolationWithoutBug(t *testing.T) {
	for _, mode := range []record.Mode{record.Swarm, record.Walk} {
		tr, runs, err := record.Search(context.Background(), kvraft.System(), nil,
			record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 100, Mode: mode})
		require.NoError(t, err)
		assert.Nil(t, tr, "%s found a violation", mode.Name())
		assert.Equal(t, 100, runs)
	}
}

// fuzzed is the first failing run with the bug switch on.
func fuzzed(t *testing.T) (*record.System, *record.Trace) {
	t.Helper()
	sys := kvraft.System()
	tr, _, err := record.Search(context.Background(), sys, bug,
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 50, Mode: record.Swarm})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in 50 runs")
	return sys, tr
}

// TestBugFoundAndReplayed: the fuzzer breaks AppliedState with the bug
// switch on, and the trace replays to the same violation.
func TestBugFoundAndReplayed(t *testing.T) {
	sys, tr := fuzzed(t)
	require.NotNil(t, tr.Header.Violation)
	assert.True(t, strings.HasPrefix(tr.Header.Violation.Fingerprint, "AppliedState("), tr.Header.Violation.Fingerprint)
	results, err := replay.Repeat(context.Background(), sys, tr, 5)
	require.NoError(t, err)
	for _, r := range results {
		assert.True(t, r.Reproduced, r.Why())
	}
}

// TestDeepCopy: Member.DeepCopy equals the reflective copy and shares no
// memory with the original (raft's tick method value bound to the copy)
// at every event of a fuzzed run; every event of the run taken in a fork
// of the run before it reaches the same states; and a member forked
// mid-run then driven by the same events as the original ends in the same
// state, while the original is untouched by what the fork does.
func TestDeepCopy(t *testing.T) {
	sys, tr := fuzzed(t)
	actors, _, err := record.CheckDeepCopies(sys, tr, 1)
	require.NoError(t, err)
	assert.Greater(t, actors, len(tr.Events))
	require.NoError(t, optimal.Forks(context.Background(), sys, tr))

	s := writeThenRestart(t, nil)
	fire(t, s, "kv-2", "campaign")
	f := s.Fork()
	require.NoError(t, f.ForkError())
	for _, sim := range []*record.Sim{s, f} {
		settle(t, sim)
		require.NoError(t, sim.Apply(record.SendEvent("kv-3", kvraft.Append{Key: "b", Value: "3"})))
		settle(t, sim)
		fire(t, sim, "kv-2", "tick")
		settle(t, sim)
	}
	for _, id := range s.Members() {
		a, ai := member(s, id).Map()
		b, bi := member(f, id).Map()
		assert.Equal(t, a, b, "%s", id)
		assert.Equal(t, ai, bi, "%s", id)
		assert.Equal(t, kvraft.KV{"a": "21", "b": "3"}, a, "%s", id)
	}
	require.NoError(t, f.Apply(record.SendEvent("kv-2", kvraft.Put{Key: "b", Value: "9"})))
	settle(t, f)
	fire(t, f, "kv-2", "tick")
	settle(t, f)
	kv, _ := member(f, "kv-3").Map()
	assert.Equal(t, "9", kv["b"], "the fork went on")
	kv, _ = member(s, "kv-3").Map()
	assert.Equal(t, "3", kv["b"], "the original did not see the fork's write")
}
