package record

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLinkChainsMatchScan replays fuzz runs of the churn system (timers
// set, replaced and cancelled, kills, restarts, partitions: every way a
// message leaves the pending list, and compactions) with the link index
// built from the first event, and after every event requires OnLink and
// NextOnLink to give, for every link and every actor's timers, exactly the
// positions a scan of the pending list gives; a fork taken halfway must
// agree with its own list too.
func TestLinkChainsMatchScan(t *testing.T) {
	plan, err := planSims(churnSystem(FIFO))
	require.NoError(t, err)
	n := int32(len(churnSystem(FIFO).Members(nil)) + 1)
	check := func(s *Sim, at int) {
		for from := range n {
			for to := range n {
				for _, timer := range []bool{false, true} {
					var want, got []int
					for i := range s.pend {
						p := &s.pend[i]
						if !p.gone() && p.from == from && p.to == to && (p.Timer != "") == timer {
							want = append(want, i)
						}
					}
					for i := s.OnLink(from, to, timer); i >= 0; i = s.NextOnLink(i) {
						got = append(got, i)
					}
					require.Equal(t, want, got, "event %d, link %d->%d, timer %v", at, from, to, timer)
				}
			}
		}
	}
	compactions := 0
	for seed := uint64(1); seed <= 20; seed++ {
		f, err := newFuzzer(plan, nil, FuzzConfig{Seed: seed, MaxSteps: 400, MaxExternals: 40, TimerProb: 0.3}.withDefaults(), false, chunks[entry]{})
		require.NoError(t, err)
		_, err = f.run(context.Background())
		require.NoError(t, err)
		events := f.sim.Events()
		require.Greater(t, len(events), 50)

		s, err := plan.newSim(nil, seed)
		require.NoError(t, err)
		s.OnLink(0, 0, false) // builds the index before the first event
		var fork *Sim
		for at, e := range events {
			holes := s.holes
			if e.Kind == Deliver {
				require.NoError(t, s.Deliver(e.ID), "event %d", at)
			} else {
				require.NoError(t, s.Apply(e), "event %d", at)
			}
			if s.holes < holes {
				compactions++
			}
			check(s, at)
			if at == len(events)/2 {
				fork = s.Fork()
			}
		}
		check(fork, -1)
	}
	require.Positive(t, compactions, "the runs compact their pending lists")
}
