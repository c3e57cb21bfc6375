package etcdraft_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
)

// stepper drives a run by hand.
type stepper struct {
	t   *testing.T
	sim *record.Sim
}

func newStepper(t *testing.T, opts record.Options) *stepper {
	sim, err := record.NewSim(etcdraft.System(), opts, 0)
	require.NoError(t, err)
	return &stepper{t: t, sim: sim}
}

func (s *stepper) apply(e record.Event) { require.NoError(s.t, s.sim.Apply(e)) }

// deliver delivers the first pending message (or timer, when timer is
// set) from → to whose type name is typ.
func (s *stepper) deliver(from, to record.ActorID, typ, timer string) {
	s.t.Helper()
	for _, p := range s.sim.Enabled(nil) {
		if p.From == from && p.To == to && p.Timer == timer && record.TypeName(p.Msg) == typ {
			require.NoError(s.t, s.sim.Deliver(p.ID))
			return
		}
	}
	s.t.Fatalf("no %s pending %s→%s", typ, from, to)
}

// TestSendBeforePersistVotesTwice is the textbook consequence of sending
// before persisting: etcd-2 votes for etcd-1, crashes before its vote is
// written, and votes for etcd-3 in the same term.
func TestSendBeforePersistVotesTwice(t *testing.T) {
	for _, bug := range []bool{true, false} {
		s := newStepper(t, record.Options{etcdraft.BugSendBeforePersist: map[bool]string{true: "true", false: "false"}[bug]})
		for _, id := range []record.ActorID{"etcd-1", "etcd-2", "etcd-3"} {
			s.apply(record.StartEvent(id))
		}
		s.deliver("etcd-1", "etcd-1", "Campaign", "campaign") // term 2
		s.deliver("etcd-1", "etcd-2", "Vote", "")
		s.apply(record.RestartEvent("etcd-2"))
		s.deliver("etcd-2", "etcd-1", "VoteResp", "") // etcd-1 leads term 2
		s.deliver("etcd-3", "etcd-3", "Campaign", "campaign")
		s.deliver("etcd-3", "etcd-2", "Vote", "")
		s.deliver("etcd-2", "etcd-3", "VoteResp", "")
		v := s.sim.Check()
		if bug {
			require.NotNil(t, v)
			assert.Equal(t, "ElectionSafety(etcd-1,etcd-3)", v.Fingerprint)
			assert.Equal(t, "etcd-1 and etcd-3 were both leader in term 2", v.Detail)
		} else {
			assert.Nil(t, v, "a written vote survives the crash: etcd-2 refuses etcd-3")
		}
	}
}

// TestRestartRebuildsFromStableStorage checks that a restarted member
// comes back with its term, vote and log, and that its fields are fresh.
func TestRestartRebuildsFromStableStorage(t *testing.T) {
	s := newStepper(t, nil)
	for _, id := range []record.ActorID{"etcd-1", "etcd-2", "etcd-3"} {
		s.apply(record.StartEvent(id))
	}
	s.deliver("etcd-1", "etcd-1", "Campaign", "campaign")
	s.deliver("etcd-1", "etcd-2", "Vote", "")
	s.deliver("etcd-2", "etcd-1", "VoteResp", "")
	s.apply(record.SendEvent("etcd-1", etcdraft.Put{Key: "a", Value: "1"}))
	s.deliver(record.External, "etcd-1", "Put", "")
	s.deliver("etcd-1", "etcd-2", "App", "")
	s.deliver("etcd-2", "etcd-1", "AppResp", "")
	s.deliver("etcd-1", "etcd-2", "App", "") // index 3
	s.deliver("etcd-2", "etcd-1", "AppResp", "")
	s.deliver("etcd-1", "etcd-2", "App", "") // commit index 3

	before := s.sim.View().Actor("etcd-2").(record.Snapshotter).Snapshot()
	require.NotNil(t, before)
	s.apply(record.RestartEvent("etcd-2"))
	after := s.sim.View().Actor("etcd-2").(record.Snapshotter).Snapshot()
	b, a := before.(map[string]any), after.(map[string]any)
	assert.Equal(t, map[string]string{"a": "1"}, b["kv"])
	assert.Equal(t, b["term"], a["term"])
	assert.Equal(t, b["vote"], a["vote"])
	assert.Equal(t, b["log"], a["log"])
	assert.Equal(t, map[string]string{"a": "1"}, a["kv"], "committed entries are applied again on restart")
	assert.Equal(t, "StateFollower", a["state"])
	assert.Nil(t, s.sim.Check())
}
