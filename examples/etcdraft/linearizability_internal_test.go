package etcdraft

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// newBuilder starts a hand-driven run with opts.
func newBuilder(t *testing.T, opts record.Options) *builder {
	t.Helper()
	sim, err := record.NewSim(System(), opts, 0)
	require.NoError(t, err)
	return &builder{ctx: context.Background(), sim: sim}
}

// reads returns the reads member i answered.
func reads(b *builder, i int) []kvapp.Op {
	var out []kvapp.Op
	for _, op := range kvapp.History(b.sim.View().Storage(m(i))) {
		if op.Read {
			out = append(out, op)
		}
	}
	return out
}

// TestReadIndexServesTheLatestWrite: a follower's read goes to the leader
// (ReadIndex), which confirms its leadership with a heartbeat round before
// it answers; the follower then answers with the committed write.
func TestReadIndexServesTheLatestWrite(t *testing.T) {
	b := newBuilder(t, nil)
	b.start(1, 2, 3)
	b.elect(1, 2)
	b.put(1, "a", "1")
	b.deliver(1, 2, is[App]) // index 2
	b.deliver(2, 1, is[AppResp])
	b.deliver(1, 2, is[App]) // index 3
	b.deliver(2, 1, is[AppResp])
	b.deliver(1, 2, is[App]) // commit index 3
	b.deliver(2, 1, is[AppResp])
	b.get(2, "a")
	b.deliver(2, 1, is[ReadIndex])
	b.deliver(1, 2, is[Heartbeat]) // the leader's quorum check carries the read's context
	b.deliver(2, 1, is[HeartbeatResp])
	require.Empty(t, reads(b, 2), "no answer before the read index comes back")
	b.deliver(1, 2, is[ReadIndexResp])
	require.NoError(t, b.err)
	got := reads(b, 2)
	require.Len(t, got, 1)
	assert.Equal(t, "a", got[0].Key)
	assert.Equal(t, "1", got[0].Value)
	assert.False(t, got[0].Absent)
	assert.Less(t, got[0].Inv, got[0].Resp)
	assert.Nil(t, b.sim.Check())
}

// TestDeposedLeaderReads runs the leader-local-read reference schedule
// with and without the bug: with it, the deposed leader etcd-3 answers at
// once with a stale value; without it, its read waits for a quorum it
// cannot get, and nobody answers.
func TestDeposedLeaderReads(t *testing.T) {
	for _, bug := range []string{"true", "false"} {
		b := newBuilder(t, record.Options{BugLeaderLocalRead: bug})
		references()[BugLeaderLocalRead](b)
		require.NoError(t, b.err)
		v := b.sim.Check()
		if bug == "true" {
			require.Len(t, reads(b, 3), 1)
			require.NotNil(t, v)
			assert.Equal(t, "Linearizability(etcd-3)", v.Fingerprint)
			assert.Equal(t, `etcd-3 answered a read of k (events 16-16) with no value; a linearizable read returns the value of the write at log index 3, completed before the read began, or a later one`, v.Detail)
			continue
		}
		assert.Empty(t, reads(b, 3))
		assert.Nil(t, v)
	}
}

// TestCampaignAnswersReads replays the first 20 runs of the documented
// campaign (reads on, every switch off) and counts the client operations
// the members answered: the Linearizability invariant had reads to check.
func TestCampaignAnswersReads(t *testing.T) {
	var invoked, answered, writes, completed int
	for seed := uint64(1); seed <= 20; seed++ {
		opts := record.Options{OptReadWeight: "10"}
		tr, err := record.Fuzz(context.Background(), System(), opts, record.FuzzConfig{Seed: seed, MaxSteps: 1000, MaxExternals: 40})
		require.NoError(t, err)
		require.Nil(t, tr.Header.Violation)
		d, err := record.NewDriver(record.Setup{System: System(), Options: opts, Seed: seed}, tr.Events, record.Follow{})
		require.NoError(t, err)
		require.NoError(t, d.Run(context.Background()))
		for _, id := range d.Sim().View().Members() {
			for _, op := range kvapp.History(d.Sim().View().Storage(id)) {
				switch {
				case op.Read:
					answered++
				case op.Resp > 0:
					writes++
					completed++
				default:
					writes++
				}
			}
		}
		for _, e := range tr.Events {
			if e.Kind == record.Deliver && record.TypeName(e.Msg) == "Get" {
				invoked++
			}
		}
	}
	t.Logf("20 runs: %d reads invoked, %d answered; %d writes invoked, %d answered", invoked, answered, writes, completed)
	// docs/examples.md cites these.
	assert.Equal(t, [4]int{374, 147, 362, 189}, [4]int{invoked, answered, writes, completed})
}
