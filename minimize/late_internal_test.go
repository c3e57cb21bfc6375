package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lateFixture is a minimizer whose best trace is a raft trace, and traces
// that are smaller than it by one delivery each, in order: what fake late
// stages offer.
func lateFixture(t *testing.T) (*minimizer, []*record.Trace) {
	t.Helper()
	tr, sys, err := record.ReadFile("testdata/raft-58a-seed7139-near.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	m, err := newStageMinimizer(sys, tr, tr, tr.Header.OptionMap(), 1)
	require.NoError(t, err)
	ts := []*record.Trace{tr}
	for k := 1; k <= 4; k++ {
		h := tr.Header
		h.Deliveries -= k
		ts = append(ts, &record.Trace{Header: h})
	}
	return m, ts
}

// fakeLate is a late stage that offers, on the best trace from, the trace
// to, and counts the steps it is given.
func fakeLate(m *minimizer, name string, share int64, moves map[*record.Trace]*record.Trace, steps int64) *lateStage {
	return &lateStage{name: name, share: share, applies: func(*record.Trace) bool { return true },
		run: func(context.Context) error {
			if to, ok := moves[m.snapshotBest()]; ok {
				m.offer(to)
			}
			m.steps.Add(steps)
			return nil
		}}
}

func stageNames(m *minimizer) []string {
	var out []string
	for _, s := range m.stages {
		out = append(out, s.Name)
	}
	return out
}

// TestLateStagesRunAgainWhileOneChangesTheBestTrace replays the route of
// raft-58a unseen seed 7139 with fake stages: retarget improves, insert
// finds nothing, near improves; in the second pass insert improves on
// near's trace, near finds nothing, retarget (its again function)
// improves; in the third pass insert and near find nothing, retarget is
// skipped (the best trace is the one it left), and there is no fourth.
func TestLateStagesRunAgainWhileOneChangesTheBestTrace(t *testing.T) {
	m, ts := lateFixture(t)
	r := fakeLate(m, "retarget", 4, map[*record.Trace]*record.Trace{ts[0]: ts[1]}, 0)
	i := fakeLate(m, "insert", 10, map[*record.Trace]*record.Trace{ts[2]: ts[3]}, 0)
	n := fakeLate(m, "near", 10, map[*record.Trace]*record.Trace{ts[1]: ts[2]}, 0)
	reran := 0
	again := func(ctx context.Context) error {
		reran++
		if m.snapshotBest() == ts[3] {
			m.offer(ts[4])
		}
		return nil
	}
	r.again = again
	require.NoError(t, m.runLate(context.Background(), []*lateStage{r, i, n}, []*lateStage{i, n, r}))
	assert.Equal(t, []string{"retarget", "insert", "near", "insert-2", "near-2", "retarget-2", "insert-3", "near-3"}, stageNames(m))
	assert.Equal(t, 1, reran, "the later passes run retarget's again function")
	assert.Same(t, ts[4], m.snapshotBest())

	// Nothing changes after the first pass's last change: no second pass.
	m, ts = lateFixture(t)
	r = fakeLate(m, "retarget", 4, map[*record.Trace]*record.Trace{ts[0]: ts[1]}, 0)
	i = fakeLate(m, "insert", 10, nil, 0)
	n = fakeLate(m, "near", 10, nil, 0)
	require.NoError(t, m.runLate(context.Background(), []*lateStage{r, i, n}, []*lateStage{i, n, r}))
	assert.Equal(t, []string{"retarget", "insert", "near"}, stageNames(m))

	// The later passes start stages only while they have used less than
	// Config.Steps/lateShare steps: an insert-2 that uses them all ends
	// them.
	m, ts = lateFixture(t)
	r = fakeLate(m, "retarget", 4, nil, 0)
	i = fakeLate(m, "insert", 10, map[*record.Trace]*record.Trace{ts[1]: ts[2]}, m.cfg.Steps/lateShare)
	n = fakeLate(m, "near", 10, map[*record.Trace]*record.Trace{ts[0]: ts[1]}, 0)
	require.NoError(t, m.runLate(context.Background(), []*lateStage{r, i, n}, []*lateStage{i, n, r}))
	assert.Equal(t, []string{"retarget", "insert", "near", "insert-2"}, stageNames(m))
	assert.Same(t, ts[2], m.snapshotBest())
}

// TestInsertSearchesTracesUpTo64Deliveries runs the insert stage on what
// the pipeline gave raft-58a unseen seed 7139 before the late stages ran
// again: 52 deliveries (E:11), a 7-term route. A suffix with an inserted
// crash-restart, found from a cut near the end, and the descent after it
// give 37 deliveries (E:12). Before, the stage applied only up to 40
// deliveries.
func TestInsertSearchesTracesUpTo64Deliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 s search")
	}
	cat := record.NewCatalog(raft.System())
	in, sys, err := record.ReadFile("testdata/raft-58a-seed7139.trace", cat)
	require.NoError(t, err)
	tr, _, err := record.ReadFile("testdata/raft-58a-seed7139-near.trace", cat)
	require.NoError(t, err)
	require.Equal(t, [2]int{52, 11}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	m, err := newStageMinimizer(sys, in, tr, in.Header.OptionMap(), 2)
	require.NoError(t, err)
	require.True(t, m.inserts(tr), "52 deliveries: the stage applies")
	m.limit.Store(m.cfg.Steps / insertShare)
	require.NoError(t, m.insert(context.Background()))
	best := m.snapshotBest()
	assert.Equal(t, [2]int{37, 12}, [2]int{best.Header.Deliveries, best.Header.Externals})
	restarts := 0
	for _, e := range best.Events {
		if e.Kind == record.Restart {
			restarts++
		}
	}
	assert.Equal(t, 1, restarts, "the suffix restarts a member")
	rep, err := replay.Run(context.Background(), sys, best)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	long := &record.Trace{Header: tr.Header}
	long.Header.Deliveries = maxInsertDeliveries + 1
	assert.False(t, m.inserts(long), "beyond 64 deliveries it does not")
}
