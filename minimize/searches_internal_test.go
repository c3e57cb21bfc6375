package minimize

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchPassOn returns a minimizer whose best trace is the one at path, of
// size want (deliveries, externals), for a test of one search pass.
func searchPassOn(t *testing.T, path string, sys *record.System, want [2]int) (*minimizer, context.Context) {
	t.Helper()
	m := stageMinimizerOf(t, path, sys, 1)
	require.Equal(t, want, sizeOf(m.best))
	return m, context.Background()
}

func sizeOf(t *record.Trace) [2]int { return [2]int{t.Header.Deliveries, t.Header.Externals} }

// countKind counts the events of kind k.
func countKind(events []record.Event, k record.Kind) int {
	n := 0
	for _, e := range events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// TestOptimumDropsALeadingStart runs optimum on the result the other
// passes leave for paxos-forget-accepted fuzz seed 3800002: 18 deliveries
// (E:6), four acceptors started, every external event leading, and no
// removal drops a start (each is on the route). The exact search over every subsequence of the external events
// finds the route in which each proposer counts the other as an acceptor:
// 18 (E:5), the bug's best known size, one start fewer.
func TestOptimumDropsALeadingStart(t *testing.T) {
	m, ctx := searchPassOn(t, "testdata/paxos-forget-accepted-3800002-four-acceptors.trace", paxos.System(), [2]int{18, 6})
	fp := m.best.Header.Violation.Fingerprint
	require.Equal(t, 4, countKind(m.best.Events, record.Start))
	m.limit.Store(m.allowance(StageOptimum))
	require.NoError(t, m.optimum(ctx))
	assert.Equal(t, [2]int{18, 5}, sizeOf(m.best))
	assert.Equal(t, 3, countKind(m.best.Events, record.Start))
	assert.Equal(t, fp, m.best.Header.Violation.Fingerprint)
}

// TestSuffixSearchLeavesOutLaterExternals runs suffix-search on the
// result the other passes leave for etcdraft hardstate-before-entries
// fuzz seed 400129: 14 deliveries (E:6). After its first ten events (a
// leader elected, its first entry appended at the member that voted) the
// trace restarts the leader for a second term, sends a client write and
// restarts the third member after the append that carries the commit
// index. From that cut, leaving the restart of the leader and the write
// out, the leader's heartbeat tick reaches the third member, whose answer
// brings the append and the commit index it restarts before persisting:
// 11 deliveries (E:4), the bug's best known size. Shrink-search does not
// find it: its continuations apply no later external event.
func TestSuffixSearchLeavesOutLaterExternals(t *testing.T) {
	m, ctx := searchPassOn(t, "testdata/etcdraft-hardstate-400129-second-term.trace", etcdraft.System(), [2]int{14, 6})
	shapes := func(es []record.Event) []record.Shape {
		var out []record.Shape
		for _, e := range es {
			out = append(out, record.ShapeOf(e))
		}
		return out
	}
	fp, prefix := m.best.Header.Violation.Fingerprint, shapes(m.best.Events[:10])
	require.True(t, m.shortForks(ctx, StageSuffixSearch))
	m.limit.Store(m.allowance(StageSuffixSearch))
	require.NoError(t, m.suffixSearch(ctx))
	assert.Equal(t, [2]int{11, 4}, sizeOf(m.best))
	assert.Equal(t, fp, m.best.Header.Violation.Fingerprint)
	assert.Equal(t, prefix, shapes(m.best.Events[:10]), "the route from the cut after the first ten events")
}

// TestLateStartTakesARouteAsCostlyAndDescends runs late-start on the
// result the other passes leave for etcdraft hardstate-before-entries fuzz
// seed 6100096: 16 deliveries (E:5). Its third member is started before
// the election and takes the leader's first append; the violation shows
// when it restarts after an append that carries a client write and the
// commit index past it. With that member's start and deliveries left out,
// the continuation that starts it late (a tick, a heartbeat and its
// answer, the catch-up append, the restart) costs as much as the trace
// it replaces, so a search for a strictly cheaper one finds nothing. The
// pass's tie takes that route and descends: the write, now useless, goes.
func TestLateStartTakesARouteAsCostlyAndDescends(t *testing.T) {
	m, ctx := searchPassOn(t, "testdata/etcdraft-hardstate-6100096-put.trace", etcdraft.System(), [2]int{16, 5})
	fp := m.best.Header.Violation.Fingerprint
	require.True(t, m.lateStarts(ctx))
	m.limit.Store(m.allowance(StageLateStart))
	require.NoError(t, m.lateStart(ctx))
	assert.Equal(t, [2]int{12, 5}, sizeOf(m.best))
	assert.Equal(t, fp, m.best.Header.Violation.Fingerprint)
	start := slices.IndexFunc(m.best.Events, func(e record.Event) bool { return e.Kind == record.Start && e.Actor == "etcd-1" })
	acked := slices.IndexFunc(m.best.Events, func(e record.Event) bool { return strings.Contains(e.String(), "MsgAppResp") })
	assert.Greater(t, start, acked, "the third member is started once the leader's first append is acknowledged")

	m, ctx = searchPassOn(t, "testdata/etcdraft-hardstate-6100096-put.trace", etcdraft.System(), [2]int{16, 5})
	passNamed(m.table, StageLateStart).tie = 0
	m.limit.Store(m.allowance(StageLateStart))
	require.NoError(t, m.lateStart(ctx))
	assert.Equal(t, [2]int{16, 5}, sizeOf(m.best), "without the tie: nothing strictly cheaper")
}

// TestBeamDescendsItsOtherMember runs the beam's other member on fuzz seed
// 6700090 of raft-56: the beam's kept result, 18 (E:8), displaced the best
// trace, 22 (E:8), when the search tier began, and the searches and the
// descent from there leave 18 (E:8). From the displaced 22 (E:8),
// shrink-search finds 18 (E:8) on another route, whose descent reaches 13
// (E:6), one delivery below the shipped 14 (E:6) (14 (E:6) before retarget's
// hoist moves, 16 (E:8) before it fired a receiver's timer in place of an
// internal message): descendOther, when the run's own descent ends, gets there.
func TestBeamDescendsItsOtherMember(t *testing.T) {
	m, ctx := searchPassOn(t, "testdata/raft-56-6700090-kept.trace", raft.System(), [2]int{18, 8})
	other, _, err := record.ReadFile("testdata/raft-56-6700090-displaced.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, [2]int{22, 8}, sizeOf(other))
	m.other, m.otherLeft = other, map[string]*record.Trace{}
	for _, p := range m.table {
		if p.Tier == Removal || p.Tier == Move { // the search tier began on it: they had left it
			m.otherLeft[p.Name] = other
		}
	}
	require.NoError(t, m.descendOther(ctx))
	assert.Equal(t, [2]int{13, 6}, sizeOf(m.best))
	assert.Nil(t, m.other, "descended once")
}

// TestOptimumAnswersFromTheForksProof runs the optimum pass on the shipped paxos-forget-accepted result, 18
// deliveries (E:5), first in a fork (the beam's), then in the run: the fork's search exhausts its bound and finds
// nothing; the run's call is answered from that proof (optimal.Proofs), counting the same steps, with no second search.
func TestOptimumAnswersFromTheForksProof(t *testing.T) {
	m, ctx := searchPassOn(t, filepath.Join("..", "examples", "traces", "paxos-forget-accepted.min.trace"), paxos.System(), [2]int{18, 5})
	best := m.best
	m.limit.Store(m.allowance(StageOptimum))
	f := m.fork(best, true)
	f.limit.Store(m.limit.Load())
	require.NoError(t, f.optimum(ctx))
	require.Same(t, best, f.best, "the shipped result is at its optimum")
	require.Equal(t, 1, m.proofs.Len(), "the fork's search exhausted its bound")
	searched := f.steps.Load() - m.steps.Load()
	require.Positive(t, searched)

	before := m.steps.Load()
	require.NoError(t, m.optimum(ctx))
	assert.Same(t, best, m.best)
	assert.Equal(t, searched, m.steps.Load()-before, "the answer counts the search it stands for")
	assert.Equal(t, 1, m.proofs.Len(), "no second search")
}
