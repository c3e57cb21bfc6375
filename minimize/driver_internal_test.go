package minimize

import (
	"context"
	"fmt"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLateCallsStillGetTheirSteps: a pass call ends at the run's stall
// point (the steps up to the last improvement past it, at least the
// floor), but never before minCallSteps past its own start, however long
// the calls before it went without improvement.
func TestLateCallsStillGetTheirSteps(t *testing.T) {
	m := &minimizer{stallFloor: 100}
	m.limit.Store(1 << 40)
	m.lastImprovement.Store(500_000)

	m.callStart = 600_000
	require.Equal(t, int64(1_000_000), m.end(), "a call that starts before the stall point ends there")

	m.callStart = 950_000
	require.Equal(t, int64(950_000+minCallSteps), m.end(), "a call that starts near or after it still gets minCallSteps")

	m.lastImprovement.Store(1_000_000) // the call found something
	require.Equal(t, int64(2_000_000), m.end())

	m.lastImprovement.Store(50) // the floor, when the steps up to the last improvement are fewer
	m.stallFloor = 500_000
	m.callStart = 0
	require.Equal(t, int64(500_050), m.end())

	m.limit.Store(120_000) // the call's share of the budget, when earlier
	require.Equal(t, int64(120_000), m.end())
}

// TestStallCountsFromFewerEventsOnly: a best trace with fewer events, or
// as many with fewer deliveries, moves the stall rule's last improvement;
// one lighter in contents alone adds a pace point but does not.
func TestStallCountsFromFewerEventsOnly(t *testing.T) {
	sized := func(d, e int) *record.Trace { return &record.Trace{Header: record.Header{Deliveries: d, Externals: e}} }
	m := &minimizer{best: sized(10, 4)}
	always := func(*record.Trace) bool { return true }
	m.steps.Store(1000)
	require.True(t, m.replaceBest(sized(9, 4), always))
	require.Equal(t, int64(1000), m.lastImprovement.Load())
	m.steps.Store(2000)
	require.True(t, m.replaceBest(sized(9, 4), always), "lighter contents alone")
	require.Equal(t, int64(1000), m.lastImprovement.Load())
	require.Len(t, m.pace, 2)
	m.steps.Store(3000)
	require.True(t, m.replaceBest(sized(8, 5), always), "as many events, fewer deliveries")
	require.Equal(t, int64(3000), m.lastImprovement.Load())
}

// TestAFailingPassIsLeftOut: a pass call that fails (here retarget, made to
// fail on every call) costs that pass, not the run: Run still returns the
// same trace as a run without the pass, the failure in Result.Failures,
// and the pass is not called again.
func TestAFailingPassIsLeftOut(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-66-1800001-min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	ctx := context.Background()
	without, err := Run(ctx, sys, tr, Config{Workers: 1, Skip: []string{StageRetarget}})
	require.NoError(t, err)
	require.Empty(t, without.Failures)

	failing := Config{Workers: 1, patchTable: func(table []pass) {
		passNamed(table, StageRetarget).run = func(*minimizer, context.Context) error { return fmt.Errorf("boom") }
	}}
	res, err := Run(ctx, sys, tr, failing)
	require.NoError(t, err)
	require.Equal(t, []string{"stage retarget: boom"}, res.Failures)
	assert.Equal(t, without.Trace.Events, res.Trace.Events)
	for _, p := range res.Passes {
		if p.Name == StageRetarget {
			assert.Equal(t, 1, p.Calls)
		}
	}
}

// TestKeptResultOfferedWhenTheBestIsThreeTimesItsSize: the beam's kept result
// waits for the search tier unless the best trace is more than the beam's
// lead (3) times its size; offered, it is the best trace and no longer kept.
func TestKeptResultOfferedWhenTheBestIsThreeTimesItsSize(t *testing.T) {
	big, m, _ := raftMinimizer(t, "../examples/traces/raft-42.trace")
	small, _, _ := raftMinimizer(t, "../examples/traces/raft-42.min.trace")
	mid, _, _ := raftMinimizer(t, "testdata/raft-42-swap.trace")
	lead := m.limitsOf(StageBeam).lead
	require.Equal(t, 3, lead)
	m.descending = true

	m.best, m.kept = mid, small // 26 events against 23: close routes
	require.Less(t, total(mid), lead*total(small))
	assert.False(t, m.offerKept(lead, true))
	assert.Same(t, small, m.kept, "kept for the search tier")
	assert.Same(t, mid, m.best)

	m.best = big
	assert.True(t, m.offerKept(lead, true))
	assert.Same(t, small, m.best, "offered after the removals' round")
	beam := m.passStats[StageBeam]
	require.NotNil(t, beam, "the beam's statistics count the offer")
	assert.Equal(t, 1, beam.Successes)
	assert.Equal(t, total(big)-total(small), beam.Removed)
	assert.Zero(t, beam.Calls, "not a call")
	assert.Same(t, big, m.other, "the trace it displaced is the beam's other member, descended when the run's own descent ends")
	assert.Nil(t, m.kept)
	assert.False(t, m.offerKept(1, true), "offered once")
}

// TestRouteIsOneTheRemovalsCannotReach: a start's result is a route to
// descend when it has fewer external events than the best trace, or, with
// fewer than the best trace had when the moves first ran, an external event
// the best trace lacks (removals never add one); one whose external events
// the best trace all has is not, whatever its size.
func TestRouteIsOneTheRemovalsCannotReach(t *testing.T) {
	tr := func(d int, actors ...record.ActorID) *record.Trace {
		var ev []record.Event
		for _, a := range actors {
			ev = append(ev, record.StartEvent(a))
		}
		return &record.Trace{Header: record.Header{Deliveries: d, Externals: len(actors)}, Events: ev}
	}
	m := &minimizer{best: tr(10, "a", "b", "c"), movesFrom: 4}
	m.routes = []*record.Trace{tr(9, "a", "b", "c")}
	assert.Nil(t, m.route(), "the best trace's own external events")
	m.routes = append(m.routes, tr(14, "a", "b", "d", "e"))
	assert.Nil(t, m.route(), "as many external events as the best trace had before the moves")
	m.routes = append(m.routes, tr(14, "a", "b", "d"))
	assert.Same(t, m.routes[2], m.route(), "a start the best trace lacks, fewer than before the moves, larger")
	m.routes = []*record.Trace{tr(20, "a", "b")}
	assert.Same(t, m.routes[0], m.route(), "fewer external events, though all the best trace's")
}
