package record_test

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step applies event e of a trace to sim: an external event, or the
// delivery of the pending message with e's ID.
func step(t *testing.T, sim *record.Sim, e record.Event) {
	t.Helper()
	if e.Kind == record.Deliver {
		require.NoError(t, sim.Deliver(e.ID))
	} else {
		require.NoError(t, sim.Apply(e))
	}
}

// raft45 reads the raft-45 trace and starts a run of it.
func raft45(t *testing.T) (*record.Trace, *record.Sim) {
	t.Helper()
	tr, sys, err := record.ReadFile("../examples/traces/raft-45.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	sim, err := tr.Setup(sys).NewSim()
	require.NoError(t, err)
	return tr, sim
}

// deliverEnabled delivers every enabled message of sim that is still
// deliverable when its turn comes (an earlier one may have cancelled it).
func deliverEnabled(t *testing.T, sim *record.Sim) {
	t.Helper()
	for _, p := range sim.Enabled(nil) {
		if sim.Deliverable(p.ID) {
			require.NoError(t, sim.Deliver(p.ID))
		}
	}
}

func TestForkIsIndependent(t *testing.T) {
	tr, sim := raft45(t)
	forks := 0
	for k, e := range tr.Events {
		step(t, sim, e)
		if k%97 != 0 {
			continue
		}
		// The fork delivers other messages than the trace does, crashes
		// a member and cuts the network: none of it may reach the
		// original run.
		f := sim.Fork()
		forks++
		assert.Equal(t, sim.Events(), f.Events())
		deliverEnabled(t, f)
		ms := sim.Members()
		require.NoError(t, f.Apply(record.RestartEvent(ms[k%len(ms)])))
		require.NoError(t, f.Apply(record.PartitionEvent(ms[:1], ms[1:])))
		deliverEnabled(t, f)
	}
	require.Equal(t, 22, forks)
	v := sim.Check()
	require.NotNil(t, v)
	assert.True(t, v.Same(tr.Header.Violation))
	assert.Equal(t, tr.Events, sim.Trace(v).Events, "the forks changed the original run")
}

func TestForkContinuesLikeTheOriginal(t *testing.T) {
	tr, sim := raft45(t)
	half := len(tr.Events) / 2
	for _, e := range tr.Events[:half] {
		step(t, sim, e)
	}
	f := sim.Fork()
	for _, e := range tr.Events[half:] {
		step(t, f, e)
	}
	v := f.Check()
	require.NotNil(t, v)
	assert.True(t, v.Same(tr.Header.Violation))
	assert.Equal(t, tr.Events, f.Trace(v).Events)
	assert.Len(t, sim.Events(), half, "the original stays where it was forked")
	assert.Nil(t, sim.Check())
}

func TestDropLogKeepsTheRun(t *testing.T) {
	tr, sim := raft45(t)
	half := len(tr.Events) / 2
	for _, e := range tr.Events[:half] {
		step(t, sim, e)
	}
	sim.DropLog()
	f := sim.Fork()
	for _, e := range tr.Events[half:] {
		step(t, f, e)
	}
	v := f.Check()
	require.NotNil(t, v)
	assert.True(t, v.Same(tr.Header.Violation))
	assert.Equal(t, tr.Header.Violation.Event, v.Event, "events are still counted")
	assert.Empty(t, f.Events())
	assert.Empty(t, sim.Events())
	assert.Equal(t, tr.Header.Deliveries, f.NumDeliveries())
}

// TestCompactLogKeepsTheTrace runs raft-45 with the event log in compact
// form, forking it along the way (as a check's schedules are forked):
// every run's trace is the full log's, event for event.
func TestCompactLogKeepsTheTrace(t *testing.T) {
	tr, full := raft45(t)
	_, compact := raft45(t)
	compact.CompactLog()
	for k, e := range tr.Events {
		step(t, full, e)
		step(t, compact, e)
		if k%211 == 0 {
			f := compact.Fork()
			deliverEnabled(t, f)
			g := full.Fork()
			deliverEnabled(t, g)
			require.Equal(t, g.Trace(nil), f.Trace(nil), "fork at event %d", k)
		}
	}
	require.Len(t, compact.Events(), len(tr.Events))
	require.Equal(t, full.Trace(tr.Header.Violation), compact.Trace(tr.Header.Violation))
}
