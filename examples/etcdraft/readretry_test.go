package etcdraft_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
)

// retryTimers lists the members with a read-retry timer pending.
func retryTimers(s *record.Sim) []record.ActorID {
	var ids []record.ActorID
	for _, p := range s.InFlight() {
		if p.Timer == "read-retry" {
			ids = append(ids, p.To)
		}
	}
	return ids
}

// TestWithReadRetry checks the read-retry option: only WithReadRetry
// declares it (System's traces stay as they were), and with it on a read
// arms the timer, which re-arms while the read waits for its read index.
func TestWithReadRetry(t *testing.T) {
	declares := func(s *record.System) bool {
		return slices.ContainsFunc(s.Options, func(o record.OptionSpec) bool { return o.Name == etcdraft.OptReadRetry })
	}
	require.False(t, declares(etcdraft.System()))
	require.True(t, declares(etcdraft.WithReadRetry()))

	for _, on := range []string{"false", "true"} {
		s, err := record.NewSim(etcdraft.WithReadRetry(), record.Options{etcdraft.OptReadRetry: on}, 1)
		require.NoError(t, err)
		for _, id := range etcdraft.Members(s.Options()) {
			require.NoError(t, s.Apply(record.StartEvent(id)))
		}
		require.NoError(t, s.Apply(record.SendEvent("etcd-1", etcdraft.Get{Key: "k"})))
		for _, p := range s.Enabled(nil) {
			if _, ok := p.Msg.(etcdraft.Get); ok {
				require.NoError(t, s.Deliver(p.ID))
			}
		}
		if on == "false" {
			require.Empty(t, retryTimers(s))
			continue
		}
		require.Equal(t, []record.ActorID{"etcd-1"}, retryTimers(s))
		for _, p := range s.Enabled(nil) {
			if p.Timer == "read-retry" {
				require.NoError(t, s.Deliver(p.ID))
			}
		}
		require.Equal(t, []record.ActorID{"etcd-1"}, retryTimers(s), "no leader yet: the read still waits, the timer is armed again")
	}
}
