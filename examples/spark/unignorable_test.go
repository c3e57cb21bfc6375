package spark_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// drop returns t with the events for which cut holds left out.
func drop(t *record.Trace, cut func(e record.Event) bool) *record.Trace {
	out := *t
	out.Events = slices.DeleteFunc(slices.Clone(t.Events), cut)
	out.Recount()
	return &out
}

// TestReplayWaitsForBootstrapMessages drops events from traces so that a
// bootstrap message (unignorable: a worker's or an application's first
// registration) is missing at its step: replay waits for it and goes on
// when it comes, and reports it, without hanging, when it cannot.
func TestReplayWaitsForBootstrapMessages(t *testing.T) {
	ctx := context.Background()
	ref, err := spark.Reference(ctx, spark.Bug9256)
	require.NoError(t, err)

	// The driver's SubmitJob is never delivered by the schedule: at the
	// RegisterApplication step, replay delivers it and the bug follows.
	noSubmit := drop(ref, func(e record.Event) bool {
		_, ok := e.Msg.(spark.SubmitJob)
		return ok && e.Kind == record.Deliver
	})
	r, err := replay.Run(ctx, spark.System(), noSubmit)
	require.NoError(t, err)
	assert.Nil(t, r.Divergence)
	assert.True(t, r.Reproduced, "%v", r.Violation)

	// worker-1 joins, registers and starts its heartbeats, then worker-2
	// joins and registers. Without worker-2's join its
	// registration never comes: replay fires worker-1's heartbeat timer,
	// delivers the heartbeat, fires the timer again, sees the cycle and
	// reports the missing registration.
	sim, err := record.NewSim(spark.System(), nil, 1)
	require.NoError(t, err)
	for _, id := range []record.ActorID{spark.MasterID, "worker-1"} {
		require.NoError(t, sim.Apply(record.StartEvent(id)))
	}
	deliver := func(from, to record.ActorID, typ string) {
		for _, p := range sim.Enabled(nil) {
			if p.From == from && p.To == to && record.TypeName(p.Msg) == typ {
				require.NoError(t, sim.Deliver(p.ID))
				return
			}
		}
		t.Fatalf("no %s %s→%s", typ, from, to)
	}
	deliver("worker-1", spark.MasterID, "RegisterWorker")
	deliver(spark.MasterID, "worker-1", "RegisteredWorker")
	require.NoError(t, sim.Apply(record.StartEvent("worker-2")))
	deliver("worker-2", spark.MasterID, "RegisterWorker")
	tr := sim.Trace(nil)
	noJoin := drop(tr, func(e record.Event) bool { return e.Kind == record.Start && e.Actor == "worker-2" })
	r, err = replay.Run(ctx, spark.System(), noJoin)
	require.NoError(t, err)
	require.NotNil(t, r.Divergence)
	assert.Equal(t, record.Divergence{Event: 4, Expected: "deliver #5 worker-2→master RegisterWorker{attempt 0}",
		Got: "the unignorable message was never sent: waited 4 deliveries for it; only timers that repeat in a cycle are pending (heartbeat at worker-1)"},
		*r.Divergence)
	assert.Equal(t, 6, r.Sim.NumDeliveries(), "two deliveries of the schedule, four while waiting")
}
