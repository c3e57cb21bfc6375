package etcdraft_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
)

// TestLowerBoundAdmissible checks the bound along every shipped etcdraft
// trace (fuzzed, minimized, reference): at every state it is at most what
// the trace still spends to its violation. Before the first event of the
// leader-local-read traces it counts the Put and the Get still to come
// (one delivery each, and their sends with external events); of the
// loadState panics, for the member that panics (not started yet), an
// election (a Campaign, a Vote, a VoteResp), an App and the AppResp that
// lets the leader commit beyond the bootstrap's index 1, the App that
// tells the member, the delivery that writes its bad HardState (6), and
// its start and its restart (external events); it gives 0 for the other
// violations.
func TestLowerBoundAdmissible(t *testing.T) {
	cat := record.NewCatalog(etcdraft.System())
	for _, bug := range etcdraft.BugNames() {
		for _, kind := range []string{".trace", ".min.trace", ".reference.trace"} {
			name := etcdraft.TraceName(bug) + kind
			t.Run(name, func(t *testing.T) {
				tr, sys, err := record.ReadFile(filepath.Join(tracesDir, name), cat)
				require.NoError(t, err)
				want := map[string][2]int{
					etcdraft.BugLeaderLocalRead:     {2, 4}, // a Put and a Get to come
					etcdraft.BugHardStateFirst:      {6, 8}, // a commit to learn, a start and a restart to come
					etcdraft.BugSkipSnapshotPersist: {6, 8},
				}[bug]
				assert.Equal(t, want, demitest.CheckLowerBound(t, sys, tr), "the bound before the first event")
			})
		}
	}
}

// TestLowerBoundStopsASearchWithoutAPut searches the shipped
// leader-local-read reproducer's first cut (its three starts, nothing
// to come): no Put, so no stale read. The bound says so at once; the
// search without it walks the elections until its cap and finds nothing.
func TestLowerBoundStopsASearchWithoutAPut(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, "etcdraft-leader-local-read.min.trace"), record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	require.Equal(t, record.Start, tr.Events[2].Kind)
	cut := &record.Trace{Header: tr.Header, Events: tr.Events[:3]}
	cut.Recount()
	cfg := optimal.Config{Subsets: true, TotalBound: 16, MaxStates: 2000, Workers: 1}
	with, err := optimal.Search(context.Background(), sys, cut, cfg)
	require.NoError(t, err)
	cfg.NoLowerBound = true
	without, err := optimal.Search(context.Background(), sys, cut, cfg)
	require.NoError(t, err)
	assert.Nil(t, with.Trace)
	assert.Nil(t, without.Trace)
	assert.True(t, with.Exhausted, "the bound covers every schedule")
	assert.LessOrEqual(t, with.Expanded, 1)
	assert.False(t, without.Exhausted, "without the bound the search stops at its cap")
	assert.GreaterOrEqual(t, without.Expanded, 2000)
}

// TestLowerBoundAdmissibleFuzzed checks the bound the same way along fresh
// failing runs of every bug: the shipped fuzz settings from seed 1000, in
// shorter runs (1,500 deliveries, no minimum), and with kills (and the
// starts that bring a killed member back) injected too, so that the bound
// meets states the shipped traces never reach: reads pending at a member
// that dies, a restart by a start.
func TestLowerBoundAdmissibleFuzzed(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes every bug")
	}
	sys := etcdraft.System()
	checked := 0
	for _, c := range etcdraft.ShippedFuzz() {
		for _, kills := range []bool{false, true} {
			opts, cfg := shortFuzz(c, kills, 1000, 200)
			tr, _, err := record.Search(context.Background(), sys, opts, cfg)
			require.NoError(t, err)
			if tr == nil {
				continue
			}
			t.Run(fmt.Sprintf("%s/kills=%v", c.Bug, kills), func(t *testing.T) { demitest.CheckLowerBound(t, sys, tr) })
			checked++
		}
	}
	assert.Equal(t, 10, checked, "every setting gave a failing run")
}

// TestLowerBoundAdmissibleRestartPanics checks the bound of raft's panic
// in loadState (restartBound) along 20 fresh failing runs of each bug
// that shows it (hardstate-before-entries, skip-snapshot-persist, with
// their shipped options), without kills and with them, from seed 2000:
// the bound counts an election, a quorum's ack, a message to the member
// and its delivery, each only when the state does not show it yet, and a
// fuzzed run reaches many more of those states than the shipped traces.
func TestLowerBoundAdmissibleRestartPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes two bugs")
	}
	sys := etcdraft.System()
	for _, c := range etcdraft.ShippedFuzz() {
		if c.Bug != etcdraft.BugHardStateFirst && c.Bug != etcdraft.BugSkipSnapshotPersist {
			continue
		}
		for _, kills := range []bool{false, true} {
			opts, cfg := shortFuzz(c, kills, 2000, 2000)
			cfg.Violation = "panic: %x state.commit"
			var trs []*record.Trace
			_, err := record.SearchAll(context.Background(), sys, opts, cfg, func(tr *record.Trace) bool {
				trs = append(trs, tr)
				return len(trs) < 20
			})
			require.NoError(t, err)
			require.Len(t, trs, 20, "%s kills=%v: 20 failing runs", c.Bug, kills)
			for _, tr := range trs {
				t.Run(fmt.Sprintf("%s/kills=%v/seed=%d", c.Bug, kills, tr.Header.Seed), func(t *testing.T) { demitest.CheckLowerBound(t, sys, tr) })
			}
		}
	}
}

// shortFuzz returns a shipped fuzz setting's options and configuration for
// runs of at most 1,500 deliveries (no minimum) from seed, at most runs of
// them, with kills (and the starts that bring a killed member back) when
// kills is set.
func shortFuzz(c etcdraft.FuzzCase, kills bool, seed uint64, runs int) (record.Options, record.SearchConfig) {
	cfg := c.Config
	cfg.Seed, cfg.Runs, cfg.MinDeliveries, cfg.MaxSteps = seed, runs, 0, 1500
	opts := c.Options()
	if kills {
		opts[etcdraft.OptKillWeight] = "2"
	}
	return opts, cfg
}
