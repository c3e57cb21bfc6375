package record_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// replays checks that t replays exactly to its violation.
func replays(t *testing.T, sys *record.System, tr *record.Trace) {
	t.Helper()
	d, err := record.NewDriver(tr.Setup(sys), tr.Events, record.Follow{Want: tr.Header.Violation})
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	require.Nil(t, d.Divergence())
	require.NotNil(t, d.Violation())
	require.Equal(t, tr.Header.Violation.Fingerprint, d.Violation().Fingerprint)
}

func TestSampleRoundPlanIsBoundedAndPeriodic(t *testing.T) {
	members := []record.ActorID{"a", "b", "c", "d", "e"}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		d, k, rounds := 1+int(seed%7), 1+int(seed%5), 3+int(seed%40)
		plan := record.SampleRoundPlan(r, members, rounds, k, d)
		require.Len(t, plan.Isolated, rounds)
		isolations := 0
		for i, iso := range plan.Isolated {
			require.LessOrEqual(t, len(iso), len(members))
			if i%k == 0 {
				isolations += len(iso) // a period starts: its first isolated
			} else {
				// Within a period the isolated set only grows.
				for _, id := range plan.Isolated[i-1] {
					require.Contains(t, iso, id, "round %d of plan %v", i, plan)
				}
				isolations += len(iso) - len(plan.Isolated[i-1])
			}
		}
		require.LessOrEqual(t, isolations, d, "plan %v", plan)
	}
	// d isolations over enough periods are all placed.
	plan := record.SampleRoundPlan(rand.New(rand.NewPCG(1, 2)), members, 40, 4, 3)
	n := 0
	for i := 0; i < 40; i += 4 {
		n += len(plan.Isolated[i+3])
	}
	require.Equal(t, 3, n)
}

func TestSearchRoundsFindsRaft58aAndReplays(t *testing.T) {
	sys := raft.System()
	opts := record.Options{raft.Bug58a: "true"}
	// Rounds draws swarm's mix, which leaves client commands (and with
	// them raft-58a) out of half the runs.
	cfg := record.SearchConfig{Runs: 1500, Mode: record.Rounds}
	cfg.Seed = 1
	tr, runs, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in %d runs", runs)
	require.Contains(t, tr.Header.Violation.Fingerprint, "nextIndex beyond its log")
	replays(t, sys, tr)
	// The same first seed gives the same trace, event for event.
	again, runs2, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.Equal(t, runs, runs2)
	require.Equal(t, len(tr.Events), len(again.Events))
	for i := range tr.Events {
		require.Equal(t, tr.Events[i].String(), again.Events[i].String(), "event %d", i)
	}
	// Its seed alone regenerates it.
	cfg.Seed, cfg.Runs = tr.Header.Seed, 1
	one, _, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.Len(t, one.Events, len(tr.Events))
}

func TestSearchRoundsIsolatesByPartitions(t *testing.T) {
	sys := raft.System()
	cfg := record.SearchConfig{Runs: 1, Mode: record.RoundsMode{Isolations: 2}}
	cfg.Seed, cfg.MaxSteps = 1, 300
	tr, _, err := record.Search(context.Background(), sys, record.Options{}, cfg)
	require.NoError(t, err)
	require.Nil(t, tr) // no bug switched on
	// A violating run keeps its plan in the note and its isolations as
	// partition events that heal.
	cfg.Runs, cfg.MaxSteps = 1500, 0
	tr, _, err = record.Search(context.Background(), sys, record.Options{raft.Bug58a: "true"}, cfg)
	require.NoError(t, err)
	require.NotNil(t, tr)
	require.Equal(t, "rounds", tr.Header.Fuzz.Mode)
	require.Equal(t, "isolated", tr.Header.Fuzz.Params[3].Name)
	parts, heals := 0, 0
	for _, e := range tr.Events {
		switch e.Kind {
		case record.Partition:
			parts++
			require.Len(t, e.A, 1)
			require.Len(t, e.B, 3) // cut off from the three others
		case record.Heal:
			heals++
		}
	}
	t.Logf("%d partitions %d heals, %s", parts, heals, tr.Header.Fuzz)
	require.Equal(t, 2, parts) // the two isolation episodes of the plan
	require.Equal(t, 2, heals)
}

func TestSearchRoundsNeedsRounds(t *testing.T) {
	sys := &record.System{Name: "plain", Members: func(record.Options) []record.ActorID { return []record.ActorID{"a"} },
		New: func(record.ActorID, record.Options) record.Actor { return nil }, Messages: []record.Message{struct{}{}}}
	_, _, err := record.Search(context.Background(), sys, nil, record.SearchConfig{Mode: record.Rounds})
	require.ErrorIs(t, err, record.ErrNoRounds)
	require.False(t, record.HasRounds(sys))
	require.True(t, record.HasRounds(raft.System()))
}

func TestSearchCoverageGrowsAndReplays(t *testing.T) {
	sys := raft.System()
	opts := record.Options{raft.Bug46: "true"}
	var points []record.CoveragePoint
	cfg := record.SearchConfig{Runs: 300, Mode: record.CoverageMode{Initial: 2,
		Report: func(p record.CoveragePoint) { points = append(points, p) }}}
	cfg.Seed = 1
	tr, runs, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation in %d runs", runs)
	require.Len(t, points, runs)
	for i := 1; i < len(points); i++ {
		require.GreaterOrEqual(t, points[i].States, points[i-1].States)
	}
	require.Greater(t, points[len(points)-1].States, 100)
	replays(t, sys, tr)
	require.Equal(t, "coverage", tr.Header.Fuzz.Mode)
	// The same seed gives the same search.
	var again []record.CoveragePoint
	cfg.Mode = record.CoverageMode{Initial: 2, Report: func(p record.CoveragePoint) { again = append(again, p) }}
	tr2, runs2, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.Equal(t, runs, runs2)
	require.Equal(t, len(tr.Events), len(tr2.Events))
	for i := range points {
		require.Equal(t, points[i].States, again[i].States)
	}
}

func TestSearchCoverageMutatesTheCorpus(t *testing.T) {
	// Without a bug nothing is found; the corpus' mutants keep finding
	// abstract states a fresh walk of the same length did not.
	sys := raft.System()
	var last record.CoveragePoint
	cfg := record.SearchConfig{Runs: 30, Mode: record.CoverageMode{Initial: 3,
		Report: func(p record.CoveragePoint) { last = p }}}
	cfg.Seed, cfg.MaxSteps = 1, 400
	tr, runs, err := record.Search(context.Background(), sys, record.Options{}, cfg)
	require.NoError(t, err)
	require.Nil(t, tr)
	require.Equal(t, 30, runs)
	require.Equal(t, 30, last.Runs)
	require.Greater(t, last.States, 0)
}

func TestAbstractSnapshot(t *testing.T) {
	type snap struct {
		Term  int
		Role  string
		Log   []int
		Peers map[string]int
		priv  int
	}
	require.Equal(t, "Log#=^0;Peers#=1;Role=leader;Term=^0;", record.AbstractSnapshot(snap{Term: 4, Role: "leader", Log: []int{1, 2, 3}, Peers: map[string]int{"a": 1}, priv: 9}))
	require.Equal(t, "a=1;b#=2;", record.AbstractSnapshot(map[string]any{"b": []string{"x", "y"}, "a": 1}))
}

// counting is an actor whose snapshot is an ever-growing counter.
type counting struct{ n int }

func (c *counting) Start(*record.Context)                                   {}
func (c *counting) Receive(*record.Context, record.ActorID, record.Message) { c.n++ }
func (c *counting) Snapshot() any                                           { return map[string]int{"n": c.n} }

type tick struct{}

// TestAbstractionBoundsCounters: the default abstraction keeps a counter
// as itself while it is small and, above, by how far it is below the
// other members', so two members counting in step reach finitely many
// abstract states however long they count, and one falling behind is
// told apart.
func TestAbstractionBoundsCounters(t *testing.T) {
	sys := &record.System{Name: "counters", Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New: func(record.ActorID, record.Options) record.Actor { return &counting{} }, Messages: []record.Message{tick{}}}
	sim, err := record.NewSim(sys, record.Options{}, 1)
	require.NoError(t, err)
	for _, id := range []record.ActorID{"a", "b"} {
		require.NoError(t, sim.Apply(record.StartEvent(id)))
	}
	abs := record.NewAbstraction(sim)
	deliver := func(to record.ActorID) uint64 {
		require.NoError(t, sim.Apply(record.SendEvent(to, tick{})))
		p := sim.InFlight()
		require.Len(t, p, 1)
		require.NoError(t, sim.Deliver(p[0].ID))
		ev := sim.Events()
		return abs.Update(&ev[len(ev)-1])
	}
	seen := map[uint64]struct{}{}
	var even []uint64 // the state after both counted to k, k = 1, 2, ...
	for range 50 {
		seen[deliver("a")] = struct{}{}
		g := deliver("b")
		seen[g] = struct{}{}
		even = append(even, g)
	}
	require.LessOrEqual(t, len(seen), 8, "counting in step: 0..2 exactly, then equal or one apart")
	require.Equal(t, even[10], even[40], "10 and 10 abstract as 40 and 40")
	require.NotEqual(t, even[0], even[1], "small counts are kept")
	deliver("a")
	behind := deliver("a")
	require.NotEqual(t, even[len(even)-1], behind, "b two behind a is a state of its own")
}
