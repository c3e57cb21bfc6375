package etcdraft_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// TestRunsFork: the runs of every shipped minimized and reference trace
// fork soundly (optimal.Forks runs each event in a fork of the run before
// it, so every member that takes a step is copied by Member.DeepCopy).
func TestRunsFork(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(tracesDir, "etcdraft-*.*.trace"))
	require.NoError(t, err)
	require.Len(t, files, 10)
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(etcdraft.System()))
		require.NoError(t, err)
		require.NoError(t, optimal.Forks(context.Background(), sys, tr), f)
	}
}

// TestOptimalSearchesEtcdRaft: demi optimal's search runs on etcd raft
// (it used to refuse: a member's RawNode holds a method value) and proves
// the shipped apply-before-commit trace's 6 deliveries optimal over its
// external events.
func TestOptimalSearchesEtcdRaft(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, "etcdraft-apply-before-commit.min.trace"), record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	require.Equal(t, 6, tr.Header.Deliveries)
	res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{MaxDeliveries: 5})
	require.NoError(t, err)
	assert.Nil(t, res.Trace)
	assert.True(t, res.Exhausted)
	assert.Equal(t, 5, res.Searched)
	// 839 states (1,320 while raft's drawn election timeout, held in a
	// member's state, kept the search from merging equal states: see
	// TestStateIsItsHistory).
	assert.Greater(t, res.States, 500)
}

// TestStateIsItsHistory: a member's state is a function of what it
// handled, whatever the order of deliveries to the other members: two runs
// of every shipped minimized trace (one without forks, one with every
// event in a fork of the run before it), and a run with two deliveries to
// different members swapped, leave every member in states with one
// fingerprint. raft draws its randomized election timeout from crypto/rand
// (settleTimeout); held in the state, the draw made every run's states
// differ, and the exact searches could not tell a state they had met.
func TestStateIsItsHistory(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(tracesDir, "etcdraft-*.min.trace"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fp := fingerprint.New(nil)
	states := func(sim *record.Sim) []uint64 {
		var out []uint64
		for _, m := range sim.Members() {
			st := sim.View().StateOf(m)
			out = append(out, fp.Of(st.Actor).Full)
		}
		return out
	}
	run := func(tr *record.Trace, sys *record.System, events []record.Event, fork bool) *record.Sim {
		sim, err := tr.Setup(sys).NewSim()
		require.NoError(t, err)
		for _, e := range events {
			if fork {
				sim = sim.Fork()
			}
			if e.Kind == record.Deliver {
				require.NoError(t, sim.Deliver(e.ID))
			} else {
				require.NoError(t, sim.Apply(e))
			}
		}
		return sim
	}
	swapped := 0
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, record.NewCatalog(etcdraft.System()))
		require.NoError(t, err)
		n := len(tr.Events) - 1 // the last event violates
		assert.Equal(t, states(run(tr, sys, tr.Events[:n], false)), states(run(tr, sys, tr.Events[:n], true)), f)
		// Two adjacent deliveries to different members, of messages
		// both pending before them, commute.
		for i := 0; i+1 < n; i++ {
			a, b := tr.Events[i], tr.Events[i+1]
			if a.Kind != record.Deliver || b.Kind != record.Deliver || a.To == b.To || b.Cause == i {
				continue
			}
			ev := slices.Clone(tr.Events[:i+2])
			ev[i], ev[i+1] = b, a
			assert.Equal(t, states(run(tr, sys, tr.Events[:i+2], true)), states(run(tr, sys, ev, true)), "%s: events %d and %d swapped", f, i, i+1)
			swapped++
		}
	}
	assert.Positive(t, swapped)
}
