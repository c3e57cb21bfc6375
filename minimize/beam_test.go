package minimize_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBeamSecondStartEscapesALocalMinimum minimizes the shipped etcdraft
// apply-before-commit trace: the best trace's descent stands at 7
// deliveries (E:3), and the beam's second start, internal events before
// external ones, run right after provenance and kept aside, gets 6 (E:3),
// which the driver offers when the search tier reaches the beam.
func TestBeamSecondStartEscapesALocalMinimum(t *testing.T) {
	res := minimizeFile(t, "../examples/traces/etcdraft-apply-before-commit.trace", etcdraft.System())
	var rows []int
	for i, s := range res.Stages {
		if minimize.PassOf(s.Name) == minimize.StageBeam {
			rows = append(rows, i)
		}
	}
	require.GreaterOrEqual(t, len(rows), 2, "the second start, then its offer")
	first, offer := res.Stages[rows[0]], res.Stages[rows[1]]
	before := res.Stages[rows[0]-1]
	assert.Equal(t, minimize.StageProvenance, before.Name, "the second start runs right after provenance")
	assert.Equal(t, [2]int{before.Deliveries, before.Externals}, [2]int{first.Deliveries, first.Externals}, "kept aside, not offered yet")
	assert.Positive(t, first.Steps)
	before = res.Stages[rows[1]-1]
	assert.Equal(t, [2]int{7, 3}, [2]int{before.Deliveries, before.Externals}, "where the best trace's descent stands")
	assert.Equal(t, [3]int64{6, 3, 0}, [3]int64{int64(offer.Deliveries), int64(offer.Externals), offer.Steps}, "the second start gets below")
	assert.Equal(t, [2]int{6, 3}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
}

// TestSecondRouteTracesReachTheBestKnownSize minimizes fresh spark-2294
// traces whose violation has one fingerprint on two routes: a task without
// preference launched before a node-local one (the bug's best known size,
// 7 deliveries (E:5)), and a speculative copy launched before one (a local
// minimum at 21 (E:7)).
//   - 600007 (fresh-seed range 600000) fails on the second route only:
//     shrink-contents renames a preference of its job to the zero value (no
//     preference), which reaches the first.
//   - 200002 (range 200000): a removal switches to the second route; the
//     zero rename of a preference reaches the first again.
//   - 200007: the same switch, after external events are removed; retarget's
//     content move submits another job the input had (other locality
//     preferences), which reaches the first.
func TestSecondRouteTracesReachTheBestKnownSize(t *testing.T) {
	for _, file := range []string{"spark-2294-600007-second-route.trace", "spark-2294-200002-routes.trace", "spark-2294-200007-routes.trace"} {
		t.Run(file, func(t *testing.T) {
			res := minimizeFile(t, "testdata/"+file, spark.System())
			assert.Equal(t, [2]int{7, 5}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
			assert.Contains(t, res.Trace.Header.Violation.Detail, "NO_PREF before NODE_LOCAL")
		})
	}
}

// minimizeFile minimizes the trace in path, of system sys, with a budget
// it must not reach and two workers.
func minimizeFile(t *testing.T, path string, sys *record.System) *minimize.Result {
	t.Helper()
	tr, s, err := record.ReadFile(path, record.NewCatalog(sys))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), s, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2})
	require.NoError(t, err)
	require.False(t, res.Interrupted)
	return res
}

// TestBeamRemovalOrdersLeaveAFourMemberRoute minimizes a fresh raft-56
// trace (seed 1900033 of the held-out range 1900000) that bootstraps four
// members. Delta debugging over its external events with wildcards keeps a
// client command and a longer log, a route whose local minimum is 39
// deliveries (E:9) with two double voters; the internal-events-first start
// ends there too. The beam's other removal orders, run right after
// provenance as well, start elsewhere (external events first without
// wildcards reaches 24 (E:8), no client command), and from there the run
// gets to 15 (E:8) with one member fewer in the bootstrap configuration,
// and retarget's timer in place of an internal message then to 15 (E:6),
// 14 (E:6), the best known size, since a descent's later deliveries may take
// another sender's message (reorder.go). Without the beam and retarget the
// run stays at 40 (E:9); without the beam alone retarget's move gets to
// 15 (E:6) too (37 (E:9) before it).
func TestBeamRemovalOrdersLeaveAFourMemberRoute(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-56-1900033-four-members.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	run := func(skip ...string) *minimize.Result {
		res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 5 * time.Minute, Workers: 2, Skip: skip})
		require.NoError(t, err)
		require.False(t, res.Interrupted)
		return res
	}
	size := func(res *minimize.Result) [2]int {
		return [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals}
	}
	assert.Equal(t, [2]int{40, 9}, size(run(minimize.StageBeam, minimize.StageRetarget)), "without the beam and retarget")
	res := run()
	assert.Equal(t, [2]int{14, 6}, size(res))
	i := slices.IndexFunc(res.Stages, func(s minimize.StageStats) bool { return s.Name == minimize.StageBeam })
	require.GreaterOrEqual(t, i, 0)
	// The removal orders: the beam's first call took 1,876,224 steps here with three of them
	// (fewer with two; its later calls offer the kept result and descend from the trace it replaced).
	assert.Less(t, res.Stages[i].Steps, int64(2_000_000), "the beam's first call's steps")
}

// TestBeamFirstStartRunsToItsStallPoint minimizes a fresh raft-56 trace
// (seed 3600080 of the fresh-seed range 3600000). Its first beam start,
// internal events first, has 2 M steps (the beam's 0.1 share of the
// default 20 M). When each call of the start's descent ran to its own
// share's end, calls that had stopped paying used them up, the start
// ended at 32 (E:9), no smaller than the best trace's own descent, and
// the run ended there. Each call now ends at the start's own stall point,
// the start gets to 14 deliveries (E:6), the best known size (14 (E:8)
// before a descent's later deliveries could take another sender's message,
// 15 before retarget's hoist moves, 21 before it fired a receiver's timer in
// place of an internal message, 24 before the swap's second direction,
// reorder.go), and the run ends there.
func TestBeamFirstStartRunsToItsStallPoint(t *testing.T) {
	res := minimizeFile(t, "testdata/raft-56-3600080-cut-start.trace", raft.System())
	var kept []minimize.StageStats
	for _, s := range res.Stages {
		if minimize.PassOf(s.Name) == minimize.StageBeam && s.Steps == 0 {
			kept = append(kept, s)
		}
	}
	require.Len(t, kept, 1, "the kept result offered once")
	assert.Equal(t, [2]int{14, 6}, [2]int{kept[0].Deliveries, kept[0].Externals}, "the start's result")
	assert.Equal(t, [2]int{14, 6}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
}

// TestBeamFirstStartKeepsNamedMembers minimizes a fresh raft-56 trace (seed
// 9100071 of the held-out range 9100000) whose violation names raft-2 and
// raft-4, two leaders of one term. The run's own descent shrinks the
// configuration to raft-1, raft-2 and raft-3 (the named members last), and
// with raft-4 outside it the route's local minimum is 25 deliveries (E:8):
// demi optimal finds nothing of 17 deliveries or fewer over its external
// events. The beam's first start keeps the named members in the
// configuration and reaches 16 (E:8), then retarget's timer in place of an
// internal message (a candidate outside it that only moved a member to a
// later term) 16 (E:6). Since retarget's hoist moves this input regresses:
// the start's descent takes a hoist at a larger size, ends at 17 (E:8) with
// raft-4 outside the first configuration, and so does the run (one of the
// two larger results in docs/minimization.md, "Hoisting a delivery", has the
// same cause); since a descent's later deliveries may take another sender's
// message (reorder.go), 16 (E:8), raft-4 still outside. The test pins that,
// for the next change to the moves' order.
func TestBeamFirstStartKeepsNamedMembers(t *testing.T) {
	res := minimizeFile(t, "testdata/raft-56-9100071.trace", raft.System())
	assert.Equal(t, [2]int{16, 8}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	i := slices.IndexFunc(res.Trace.Events, func(e record.Event) bool { _, ok := e.Msg.(raft.Bootstrap); return ok })
	require.GreaterOrEqual(t, i, 0)
	assert.NotContains(t, res.Trace.Events[i].Msg.(raft.Bootstrap).Members, record.ActorID("raft-4"),
		"the regression: raft-4 outside the first configuration")
}

// TestBeamWithoutTheExternalsFirstStart minimizes a fresh etcdraft
// hardstate-before-entries trace (seed 9600078 of the held-out range
// 9600000). The run's own descent ends at 17 deliveries (E:6): a leader
// that restarts and a second election, on a route whose removals never
// drop an external event it needs. A beam start that ran the external
// events' ddmin first (without wildcards) ended its removals at 21 (E:4),
// and the beam's descent of that route (route) reached the bug's best known
// size, 11 (E:4). That start was deleted: on the 340 held-out traces of
// ranges 10100000-10400000 it changed no result (and it took 13 % of their
// steps), and on long traces it spent its share on removals that wildcards
// do better (docs/minimization.md, "The beam's starts"). This input is the
// one known to lose by it; the test pins the regression for the next change
// to the beam's starts.
func TestBeamWithoutTheExternalsFirstStart(t *testing.T) {
	res := minimizeFile(t, "testdata/etcdraft-hardstate-before-entries-9600078.trace", etcdraft.System())
	assert.Equal(t, [2]int{17, 6}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
}

// TestASecondElectionTraceStartsAMemberLater minimizes what the removals leave for
// etcdraft-hardstate-before-entries fuzz seed 3800207: 16 deliveries (E:5), all three members started
// first, the violation reached through a second election after a restart. The best known route, 11
// deliveries (E:4), starts the member that restarts after the first leader's entry is committed (a
// message to an actor not running is dropped, so it misses the vote request and the first append),
// which no removal reaches: add-event trades a delivery for a crash-restart (15 (E:5), the same total),
// from which suffix-search's continuation gets to 11 (E:5), and a retarget move to 11 (E:4).
func TestASecondElectionTraceStartsAMemberLater(t *testing.T) {
	res := minimizeFile(t, "testdata/etcdraft-hardstate-3800207-second-election.trace", etcdraft.System())
	assert.Equal(t, [2]int{11, 4}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	first := slices.IndexFunc(res.Trace.Events, func(e record.Event) bool { return !e.Kind.IsExternal() })
	assert.Equal(t, 2, first, "two members started, then the first deliveries")
	paid := map[string]bool{}
	for _, p := range res.Passes {
		paid[p.Name] = p.Successes > 0
	}
	assert.True(t, paid[minimize.StageSuffixSearch], "the continuation found")
}

// TestTheVictimCanBeAnotherMemberStartedLate minimizes the result of etcdraft-hardstate-before-entries fuzz seed
// 13600110 (held-out range 13600000), 11 deliveries (E:5): the member whose vote elects the first leader
// restarts, which drops the append queued for it, and crashes at its second restart on the append that
// carries the commit index. The best known route, 11 deliveries (E:4), gives that part to the third member,
// started after the election, and needs no first restart. late-start leaves the third member's start and
// deliveries out of the plan, moves the last restart to it, and searches from the plan's cuts with the start
// to apply again: from the cut after the leader's first tick it finds the route.
func TestTheVictimCanBeAnotherMemberStartedLate(t *testing.T) {
	res := minimizeFile(t, "testdata/etcdraft-hardstate-13600110-voter-restarts.trace", etcdraft.System())
	assert.Equal(t, [2]int{11, 4}, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals})
	n := len(res.Trace.Events)
	assert.Equal(t, record.Restart, res.Trace.Events[n-1].Kind)
	assert.NotEqual(t, record.ActorID("etcd-1"), res.Trace.Events[n-1].Actor, "the input restarts etcd-1, its voter")
	paid := map[string]bool{}
	for _, p := range res.Passes {
		paid[p.Name] = p.Successes > 0
	}
	assert.True(t, paid[minimize.StageLateStart], "the late start found")
}
