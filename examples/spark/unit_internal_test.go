package spark

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

const (
	w1, w2 = record.ActorID("worker-1"), record.ActorID("worker-2")
	x1     = record.ActorID("exec-1")
)

// TestFindTaskOrder checks the scheduler's locality order, correct and
// with spark-2294, on one executor of worker-1's host.
func TestFindTaskOrder(t *testing.T) {
	tasks := func(prefs ...record.ActorID) []task {
		out := make([]task, len(prefs))
		for i, p := range prefs {
			out[i].Pref = p
		}
		return out
	}
	type pick struct {
		task  int
		level Level
	}
	for _, c := range []struct {
		name           string
		tasks          []task
		correct, buggy pick
	}{
		{"node-local first", tasks(NoPref, w2, w1), pick{2, NodeLocal}, pick{0, NoPrefLevel}},
		{"no-pref before any", tasks(w2, NoPref), pick{1, NoPrefLevel}, pick{1, NoPrefLevel}},
		{"any", tasks(w2, w2), pick{0, Any}, pick{0, Any}},
	} {
		i, l := findTask(c.tasks, x1, w1, false)
		assert.Equal(t, c.correct, pick{i, l}, "%s: correct", c.name)
		i, l = findTask(c.tasks, x1, w1, true)
		assert.Equal(t, c.buggy, pick{i, l}, "%s: spark-2294", c.name)
	}

	// A speculatable copy of task 0 (running on exec-2) and a pending task
	// preferring worker-1: the correct order launches the pending one at
	// NODE_LOCAL, the buggy one the copy first.
	ts := tasks(w1, w1)
	ts[0].Launched, ts[0].Attempts, ts[0].Running, ts[0].Speculatable = true, 1, []record.ActorID{"exec-2"}, true
	i, l := findTask(ts, x1, w1, false)
	assert.Equal(t, pick{1, NodeLocal}, pick{i, l})
	i, l = findTask(ts, x1, w1, true)
	assert.Equal(t, pick{0, Speculative}, pick{i, l})
	inv := inversion(1, ts, 0, Speculative, x1, w1)
	require.NotNil(t, inv)
	assert.Equal(t, Inversion{App: 1, Task: 0, Level: Speculative, Exec: x1, Better: 1, BetterLevel: NodeLocal}, *inv)

	// The same with the pending task preferring worker-2: ANY.
	ts = tasks(w1, w2)
	ts[0].Launched, ts[0].Attempts, ts[0].Running, ts[0].Speculatable = true, 1, []record.ActorID{"exec-2"}, true
	i, l = findTask(ts, x1, w1, false)
	assert.Equal(t, pick{1, Any}, pick{i, l})
	i, l = findTask(ts, x1, w1, true)
	assert.Equal(t, pick{0, Speculative}, pick{i, l})
	inv = inversion(1, ts, 0, Speculative, x1, w1)
	require.NotNil(t, inv)
	assert.Equal(t, Inversion{App: 1, Task: 0, Level: Speculative, Exec: x1, Better: 1, BetterLevel: Any}, *inv)
	assert.Nil(t, inversion(1, ts, 1, Any, x1, w1))
}

// TestMasterRecovery checks that a master recovers its records, and what
// it does with an application whose driver record is gone: the correct
// master finishes its removal, with spark-3150 it panics.
func TestMasterRecovery(t *testing.T) {
	run := func(bug bool) (*record.Sim, *record.Violation) {
		o := record.Options{}
		if bug {
			o[Bug3150] = "true"
		}
		sim, err := record.NewSim(System(), o, 1)
		require.NoError(t, err)
		require.NoError(t, sim.Apply(record.StartEvent(MasterID)))
		require.NoError(t, sim.Apply(record.StartEvent(DriverID)))
		require.NoError(t, sim.Apply(record.SendEvent(DriverID, SubmitJob{Prefs: []record.ActorID{NoPref}})))
		deliverFirst := func(typ string) {
			for _, p := range sim.Enabled(nil) {
				if record.TypeName(p.Msg) == typ {
					require.NoError(t, sim.Deliver(p.ID))
					return
				}
			}
			t.Fatalf("no %s pending", typ)
		}
		deliverFirst("SubmitJob")
		deliverFirst("RegisterApplication")
		require.NoError(t, sim.Apply(record.RestartEvent(MasterID)))
		m := sim.View().Actor(MasterID).(*Master)
		require.Contains(t, m.apps, 1, "the application is recovered from its records")
		require.NoError(t, sim.Apply(record.RestartEvent(DriverID)))
		deliverFirst("DriverDisconnected")
		require.NoError(t, sim.Apply(record.RestartEvent(MasterID)))
		return sim, sim.Check()
	}
	sim, v := run(false)
	assert.Nil(t, v)
	m := sim.View().Actor(MasterID).(*Master)
	assert.Empty(t, m.apps)
	assert.True(t, m.done[1], "the half-removed application is removed")
	_, ok := sim.View().Storage(MasterID).Get("app/1")
	assert.False(t, ok)

	_, v = run(true)
	require.NotNil(t, v)
	assert.Equal(t, "panic: runtime error: invalid memory address or nil pointer dereference @ spark.(*Master).Start", v.Fingerprint)
}

// TestPi checks the pi job: the slices of a job estimate pi.
func TestPi(t *testing.T) {
	inside := 0
	for task := range 10 {
		inside += piSlice(task)
	}
	assert.InDelta(t, 3.14, 4*float64(inside)/float64(10*SliceSize), 0.1)
}
