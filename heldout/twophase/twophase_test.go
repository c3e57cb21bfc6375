package twophase_test

import (
	"context"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tp "github.com/demi-project/demi/heldout/twophase"
)

// TestDecide checks the coordinator's decision rule.
func TestDecide(t *testing.T) {
	Y, N, M := tp.Yes, tp.No, tp.Missing
	for _, c := range []struct {
		name             string
		votes            []tp.Ballot
		timedOut         bool
		decided, commits bool
	}{
		{"all yes: commit", []tp.Ballot{Y, Y, Y}, false, true, true},
		{"all yes at the timeout: commit", []tp.Ballot{Y, Y, Y}, true, true, true},
		{"one no: abort", []tp.Ballot{Y, N, Y}, false, true, false},
		{"a no before the others: abort at once", []tp.Ballot{M, N, M}, false, true, false},
		{"a vote missing: wait", []tp.Ballot{Y, M, Y}, false, false, false},
		{"a vote missing at the timeout: abort", []tp.Ballot{Y, M, Y}, true, true, false},
		{"no vote yet: wait", []tp.Ballot{M, M, M}, false, false, false},
		{"single participant, yes: commit", []tp.Ballot{Y}, false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			decided, commit := tp.Decide(c.votes, c.timedOut)
			assert.Equal(t, c.decided, decided, "decided")
			assert.Equal(t, c.commits, commit, "commit")
		})
	}
}

// newSim starts the coordinator and three participants.
func newSim(t *testing.T, opts record.Options) *record.Sim {
	t.Helper()
	s, err := record.NewSim(tp.System(), opts, 1)
	require.NoError(t, err)
	for _, id := range s.Members() {
		require.NoError(t, s.Apply(record.StartEvent(id)))
	}
	return s
}

// deliverAll delivers ordinary messages (never timers), the oldest first,
// at most limit of them, skipping those skip rejects.
func deliverAll(t *testing.T, s *record.Sim, limit int, skip func(record.Pending) bool) {
	t.Helper()
	for range limit {
		delivered := false
		for _, p := range s.Enabled(nil) {
			if p.Timer == "" && (skip == nil || !skip(p)) {
				require.NoError(t, s.Deliver(p.ID))
				delivered = true
				break
			}
		}
		if !delivered {
			return
		}
	}
}

// fire fires the timer key at id.
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

func status(s *record.Sim, id record.ActorID, tx int) tp.Status {
	return s.View().Actor(id).(*tp.Participant).Status(tx)
}

var parts = []record.ActorID{"p1", "p2", "p3"}

// TestCommitAndAbort runs one transaction every participant accepts and
// one that p2 prefers to abort.
func TestCommitAndAbort(t *testing.T) {
	s := newSim(t, nil)
	require.NoError(t, s.Apply(record.SendEvent("p2", tp.Prefer{Tx: 2, Abort: true})))
	require.NoError(t, s.Apply(record.SendEvent(tp.Coordinator, tp.Begin{Tx: 1})))
	require.NoError(t, s.Apply(record.SendEvent(tp.Coordinator, tp.Begin{Tx: 2})))
	deliverAll(t, s, 200, nil)
	require.Nil(t, s.Check())
	for _, id := range parts {
		assert.Equal(t, tp.Committed, status(s, id, 1), "%s tx1", id)
		assert.Equal(t, tp.Aborted, status(s, id, 2), "%s tx2", id)
	}
}

// TestVoteTimeoutAborts: with p3's Prepare never delivered, the
// coordinator's vote timer aborts the transaction.
func TestVoteTimeoutAborts(t *testing.T) {
	s := newSim(t, nil)
	require.NoError(t, s.Apply(record.SendEvent(tp.Coordinator, tp.Begin{Tx: 1})))
	toP3 := func(p record.Pending) bool { _, ok := p.Msg.(tp.Prepare); return ok && p.To == "p3" }
	deliverAll(t, s, 200, toP3)
	fire(t, s, tp.Coordinator, "votes")
	deliverAll(t, s, 200, nil)
	require.Nil(t, s.Check())
	for _, id := range parts {
		assert.Equal(t, tp.Aborted, status(s, id, 1), "%s", id)
	}
}

// commitThenRestart runs tx1 until the coordinator decides Commit, then
// crash-restarts the coordinator and p2 (whose Commit is dropped), and
// lets p2 recover: its inquiry timer asks the coordinator.
func commitThenRestart(t *testing.T, opts record.Options) *record.Sim {
	s := newSim(t, opts)
	require.NoError(t, s.Apply(record.SendEvent(tp.Coordinator, tp.Begin{Tx: 1})))
	decisions := func(p record.Pending) bool { _, ok := p.Msg.(tp.Decision); return ok }
	deliverAll(t, s, 200, decisions)
	for _, id := range parts {
		require.Equal(t, tp.Prepared, status(s, id, 1), "%s", id)
	}
	require.NoError(t, s.Apply(record.RestartEvent(tp.Coordinator)))
	require.NoError(t, s.Apply(record.RestartEvent("p2")))
	deliverAll(t, s, 200, func(p record.Pending) bool { return decisions(p) && p.To == "p2" })
	fire(t, s, "p2", "inquire")
	deliverAll(t, s, 200, nil)
	return s
}

// TestPreparedParticipantRecovers: a prepared participant that crashed
// learns the logged Commit from the restarted coordinator.
func TestPreparedParticipantRecovers(t *testing.T) {
	s := commitThenRestart(t, nil)
	require.Nil(t, s.Check())
	for _, id := range parts {
		assert.Equal(t, tp.Committed, status(s, id, 1), "%s", id)
	}
}

// TestSendBeforeLogLosesCommit: with the bug, the same schedule loses the
// Commit in the coordinator's crash, and p2 is told to abort.
func TestSendBeforeLogLosesCommit(t *testing.T) {
	s := commitThenRestart(t, record.Options{tp.BugSendBeforeLog: "true"})
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "Atomicity(p1,p2)", v.Fingerprint, v.Detail)
	assert.Equal(t, tp.Aborted, status(s, "p2", 1))
}

// TestNoViolationWithoutBug fuzzes the correct protocol.
func TestNoViolationWithoutBug(t *testing.T) {
	for _, mode := range []record.Mode{record.Swarm, record.Walk} {
		tr, runs, err := record.Search(context.Background(), tp.System(), nil,
			record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 2000, Mode: mode})
		require.NoError(t, err)
		assert.Nil(t, tr, "%s found a violation", mode.Name())
		assert.Equal(t, 2000, runs)
	}
}

// TestBugFoundAndReplayed fuzzes with the bug switch on: the fuzzer breaks
// Atomicity, and the trace replays to the same violation.
func TestBugFoundAndReplayed(t *testing.T) {
	ctx := context.Background()
	sys := tp.System()
	tr, _, err := record.Search(ctx, sys, record.Options{tp.BugSendBeforeLog: "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 1000, Mode: record.Swarm})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in 1000 runs")
	require.NotNil(t, tr.Header.Violation)
	assert.True(t, strings.HasPrefix(tr.Header.Violation.Fingerprint, "Atomicity("), tr.Header.Violation.Fingerprint)

	results, err := replay.Repeat(ctx, sys, tr, 5)
	require.NoError(t, err)
	for _, r := range results {
		assert.True(t, r.Reproduced, r.Why())
	}
}
