package tokenring_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefinition(t *testing.T) {
	sys := tokenring.System()
	assert.Equal(t, "tokenring", sys.Name)
	assert.Equal(t, []string{"restore-token", "panic-on-lap"}, sys.Bugs())
	for _, size := range []string{"1", "3", "5"} {
		o, err := sys.Resolve(record.Options{"size": size})
		require.NoError(t, err)
		assert.Len(t, sys.Members(o), o.Int("size"))
	}
	o, err := sys.Resolve(nil)
	require.NoError(t, err)
	assert.Equal(t, []record.ActorID{"n1", "n2", "n3"}, sys.Members(o))
	setup := sys.Setup(o)
	kinds := []record.Kind{}
	for _, e := range setup {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []record.Kind{record.Start, record.Start, record.Start, record.Send, record.WaitCondition}, kinds)
}

// run applies externals to a fresh tokenring Sim, delivering every enabled
// message (not timers) after each, and fires the pass timers given by
// fire (actor IDs, in order) at the end.
func run(t *testing.T, opts record.Options, evs []record.Event, fire ...record.ActorID) *record.Sim {
	t.Helper()
	s, err := record.NewSim(tokenring.System(), opts, 1)
	require.NoError(t, err)
	for _, e := range evs {
		require.NoError(t, s.Apply(e))
		deliverMessages(t, s)
	}
	for _, id := range fire {
		fired := false
		for _, p := range s.Enabled(nil) {
			if p.Timer == "pass" && p.To == id {
				require.NoError(t, s.Deliver(p.ID))
				fired = true
				break
			}
		}
		require.True(t, fired, "no pass timer pending at %s", id)
		deliverMessages(t, s)
	}
	return s
}

func deliverMessages(t *testing.T, s *record.Sim) {
	t.Helper()
	for {
		var next *record.Pending
		en := s.Enabled(nil)
		for i := range en {
			if en[i].Timer == "" {
				next = &en[i]
				break
			}
		}
		if next == nil {
			return
		}
		require.NoError(t, s.Deliver(next.ID))
	}
}

func holders(s *record.Sim) []record.ActorID {
	var out []record.ActorID
	for _, id := range s.Members() {
		if n, ok := s.View().Actor(id).(*tokenring.Node); ok && n.Holding() {
			out = append(out, id)
		}
	}
	return out
}

func start(ids ...record.ActorID) []record.Event {
	var evs []record.Event
	for _, id := range ids {
		evs = append(evs, record.StartEvent(id))
	}
	return evs
}

func TestBehaviour(t *testing.T) {
	all := start("n1", "n2", "n3")
	inject := record.SendEvent("n1", tokenring.Inject{Serial: 1})
	tests := []struct {
		name    string
		opts    record.Options
		evs     []record.Event
		fire    []record.ActorID
		holders int
		fp      string // the invariant's fingerprint, "" if it holds
	}{
		{"inject gives the token", nil, append(all, inject), nil, 1, ""},
		{"passing moves the token", nil, append(all, inject), []record.ActorID{"n1"}, 1, ""},
		{"restart loses the token", nil, append(all, inject, record.RestartEvent("n1")), nil, 0, ""},
		{"kill loses the token", nil, append(all, inject, record.KillEvent("n1")), nil, 0, ""},
		{"with restore-token a restarted holder keeps it", record.Options{"restore-token": "true"},
			append(all, inject, record.RestartEvent("n1")), nil, 1, ""},
		{"with restore-token a stale token comes back", record.Options{"restore-token": "true"},
			append(all, inject), []record.ActorID{"n1"}, 1, ""},
		{"two injections give two tokens", nil, append(all, inject, record.SendEvent("n2", tokenring.Inject{Serial: 2})), nil, 2, "two-tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := run(t, tc.opts, tc.evs, tc.fire...)
			assert.Len(t, holders(s), tc.holders)
			v := s.Check()
			if tc.fp == "" {
				assert.Nil(t, v)
			} else {
				require.NotNil(t, v)
				assert.Equal(t, tc.fp, v.Fingerprint)
			}
		})
	}
}

func TestRestoreTokenBug(t *testing.T) {
	// n1 passes the token on, then crash-restarts: with the bug it takes
	// the stale token from stable storage and two actors hold it.
	opts := record.Options{"restore-token": "true"}
	s := run(t, opts, append(start("n1", "n2", "n3"), record.SendEvent("n1", tokenring.Inject{Serial: 1})), "n1")
	require.Len(t, holders(s), 1)
	require.NoError(t, s.Apply(record.RestartEvent("n1")))
	assert.Len(t, holders(s), 2)
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "two-tokens", v.Fingerprint)
}

func TestSnapshot(t *testing.T) {
	s := run(t, nil, append(start("n1", "n2", "n3"), record.SendEvent("n1", tokenring.Inject{Serial: 1})))
	n := s.View().Actor("n1").(*tokenring.Node)
	assert.Equal(t, map[string]any{"holding": true, "hops": 0, "seen": 1}, n.Snapshot())
}

func TestFuzzFindsEachBug(t *testing.T) {
	tests := []struct {
		bug    string
		wantFP string
	}{
		{"restore-token", "two-tokens"},
		{"panic-on-lap", "panic: token 1 completed a lap @ tokenring.(*Node).take"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.bug, func(t *testing.T) {
			sys := tokenring.System()
			opts := record.Options{tc.bug: "true"}
			tr, runs, err := record.Search(context.Background(), sys, opts,
				record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 500, MaxExternals: 30}, Runs: 50})
			require.NoError(t, err)
			require.NotNil(t, tr, "no violation in %d runs", runs)
			assert.Equal(t, tc.wantFP, tr.Header.Violation.Fingerprint)

			// Same seed, same bytes.
			again, err := record.Fuzz(context.Background(), sys, opts, record.FuzzConfig{Seed: tr.Header.Seed, MaxSteps: 500, MaxExternals: 30})
			require.NoError(t, err)
			var a, b bytes.Buffer
			require.NoError(t, tr.Encode(&a))
			require.NoError(t, again.Encode(&b))
			assert.Equal(t, a.Bytes(), b.Bytes())

			// Through a file, it replays 20 times out of 20.
			path := filepath.Join(dir, tc.bug+".trace")
			require.NoError(t, tr.WriteFile(path))
			loaded, lsys, err := record.ReadFile(path, record.NewCatalog(tokenring.System()))
			require.NoError(t, err)
			results, err := replay.Repeat(context.Background(), lsys, loaded, 20)
			require.NoError(t, err)
			require.Len(t, results, 20)
			for i, r := range results {
				require.True(t, r.Reproduced, "replay %d: %v", i, r.Divergence)
				assert.Equal(t, tr.Header.Violation.Fingerprint, r.Violation.Fingerprint)
			}
		})
	}
}

func TestNoBugNoViolation(t *testing.T) {
	// Without a bug switch the token is never duplicated, whatever the
	// schedule (kills and restarts may lose it, which is allowed).
	tr, runs, err := record.Search(context.Background(), tokenring.System(), nil,
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 300, MaxExternals: 30}, Runs: 30})
	require.NoError(t, err)
	assert.Nil(t, tr)
	assert.Equal(t, 30, runs)
}

func TestEveryEventKindShowsUp(t *testing.T) {
	kinds := map[record.Kind]bool{}
	for seed := uint64(1); seed <= 10 && len(kinds) < 9; seed++ {
		tr, err := record.Fuzz(context.Background(), tokenring.System(), nil, record.FuzzConfig{Seed: seed, MaxSteps: 300, MaxExternals: 40})
		require.NoError(t, err)
		for _, e := range tr.Events {
			kinds[e.Kind] = true
		}
	}
	assert.Len(t, kinds, 9, "every kind of event appears in fuzz runs: %v", kinds)
}

// BenchmarkFuzz measures fuzzing a real (if small) system: timers, seeded
// randomness, stable storage, restarts, kills and partitions.
func BenchmarkFuzz(b *testing.B) {
	sys := tokenring.System()
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 3000, MaxExternals: 30}, Runs: 10}
	deliveries := 0
	for b.Loop() {
		for i := 0; i < cfg.Runs; i++ {
			c := cfg.FuzzConfig
			c.Seed += uint64(i)
			tr, err := record.Fuzz(context.Background(), sys, nil, c)
			if err != nil {
				b.Fatal(err)
			}
			deliveries += tr.Header.Deliveries
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(deliveries)
	b.ReportMetric(ns, "ns/delivery")
	b.ReportMetric(1e9/ns, "deliveries/s")
}

// TestTokenRingUnderDemi is how the ring's own test suite uses demi: fuzz
// the correct ring (crash-restarts, kills, partitions) inside `go test`,
// after checking the traces kept under testdata/demi/TestTokenRingUnderDemi/.
func TestTokenRingUnderDemi(t *testing.T) {
	demitest.Check(t, tokenring.System(), demitest.Fuzz(record.FuzzConfig{MaxSteps: 300}), demitest.Runs(50))
}
