package raft_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// TestLowerBoundAdmissible checks the bound along every shipped Raft trace
// (fuzzed, minimized, reference): at every state it is at most what the
// trace still spends to its violation, in deliveries and in deliveries
// plus external events. At the start it is what the table says, so a
// bound that stops recognising a target fails here too.
func TestLowerBoundAdmissible(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	// The bound before the first event of each .min.trace, deliveries
	// only and with external events; 0 for the targets it does not know.
	start := map[string][2]int{}
	for _, bug := range raft.BugNames() {
		for _, kind := range []string{".trace", ".min.trace", ".reference.trace"} {
			name := bug + kind
			t.Run(name, func(t *testing.T) {
				tr, sys, err := record.ReadFile(filepath.Join(tracesDir, name), cat)
				require.NoError(t, err)
				require.NotNil(t, sys.LowerBound)
				for _, subsets := range []bool{false, true} {
					bounds, costs := demitest.LowerBoundAlong(t, sys, tr, subsets)
					for k := range bounds {
						require.LessOrEqual(t, bounds[k], costs[k], "state after %d events (subsets %v): bound above the cost left", k, subsets)
					}
					assert.Equal(t, 0, bounds[len(bounds)-1], "the violation itself costs nothing more")
					if kind == ".min.trace" {
						s := start[bug]
						if subsets {
							s[1] = bounds[0]
						} else {
							s[0] = bounds[0]
						}
						start[bug] = s
					}
				}
			})
		}
	}
	t.Logf("%v", start)
}

// TestLowerBoundAdmissibleOnOptima checks the bound along the cheapest
// reproducers the optimum search found (testdata/optima: raft-56 in 15
// deliveries (E:6), raft-66 in 13 (E:7)), the tightest traces there are:
// the bound may equal what is left, never exceed it. They reproduce.
func TestLowerBoundAdmissibleOnOptima(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	for _, c := range []struct {
		file                  string
		deliveries, externals int
	}{{"raft-56.trace", 15, 6}, {"raft-66.trace", 13, 7}} {
		t.Run(c.file, func(t *testing.T) {
			tr, sys, err := record.ReadFile(filepath.Join("testdata", "optima", c.file), cat)
			require.NoError(t, err)
			assert.Equal(t, c.deliveries, tr.Header.Deliveries)
			assert.Equal(t, c.externals, tr.Header.Externals)
			for _, subsets := range []bool{false, true} {
				bounds, costs := demitest.LowerBoundAlong(t, sys, tr, subsets)
				for k := range bounds {
					require.LessOrEqual(t, bounds[k], costs[k], "state after %d events (subsets %v)", k, subsets)
				}
			}
		})
	}
}

// runEvent runs e, an event of a recorded trace, in sim.
func runEvent(sim *record.Sim, e record.Event) error {
	if e.Kind == record.Deliver {
		return sim.Deliver(e.ID)
	}
	return sim.Apply(e)
}

// fuzzedRun is the first failing run of c's fuzz settings from seed, in
// shorter runs (1,500 steps, no minimum of deliveries) and, with faults,
// with crash-restarts, kills and partitions injected too; nil when none of
// 100 runs fails.
func fuzzedRun(t *testing.T, sys *record.System, c raft.FuzzCase, seed uint64, faults bool) *record.Trace {
	t.Helper()
	cfg := c.Config
	cfg.Seed, cfg.Runs, cfg.MinDeliveries, cfg.MaxSteps = seed, 100, 0, 1500
	opts := c.Options()
	if faults {
		opts["restart-weight"], opts["kill-weight"], opts["partition-weight"] = "3", "2", "2"
	}
	tr, _, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	return tr
}

// future is the external events of tr from event k on.
func future(tr *record.Trace, k int) []record.Event {
	var out []record.Event
	for _, e := range tr.Events[k:] {
		if e.Kind.IsExternal() {
			out = append(out, e)
		}
	}
	return out
}

// TestLowerBoundAdmissibleFuzzed checks the bound the same way along fresh
// failing runs of every bug: the shipped fuzz settings with other seeds
// (shorter runs), and with crash-restarts, kills and partitions injected
// too, so that the bound meets states the shipped traces never reach.
func TestLowerBoundAdmissibleFuzzed(t *testing.T) {
	sys := raft.System()
	checked := 0
	for _, c := range raft.ShippedFuzz() {
		for _, faults := range []bool{false, true} {
			tr := fuzzedRun(t, sys, c, 1000, faults)
			if tr == nil {
				continue
			}
			for _, subsets := range []bool{false, true} {
				bounds, costs := demitest.LowerBoundAlong(t, sys, tr, subsets)
				for k := range bounds {
					require.LessOrEqual(t, bounds[k], costs[k], "%s faults=%v: state after %d events (subsets %v)", c.Bug, faults, k, subsets)
				}
			}
			t.Logf("%s faults=%v: %d events, %s", c.Bug, faults, len(tr.Events), tr.Header.Violation.Fingerprint)
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 9, "most settings find a failing run")
}

// reachable reports whether some continuation of sim costing at most
// budget shows want: every delivery costs one, and so does every
// external event of future applied (each may be left out, in order).
// It is the bound's definition, searched by brute force.
func reachable(sim *record.Sim, future []record.Event, want *record.Violation, budget int) bool {
	if sim.Check().Same(want) {
		return true
	}
	if budget == 0 || sim.Halted() != nil {
		return false
	}
	for k, e := range future {
		c := sim.Fork()
		if c.Apply(e) == nil && reachable(c, future[k+1:], want, budget-1) {
			return true
		}
	}
	for _, p := range sim.Enabled(nil) {
		c := sim.Fork()
		if c.Deliver(p.ID) == nil && reachable(c, future, want, budget-1) {
			return true
		}
	}
	return false
}

// TestLowerBoundNeverCutsAReproducer checks the bound against the truth
// near the violation, where it is tightest: for every state along the
// shipped minimized traces and the optima, and every state
// one delivery off them, whose bound h is small, no continuation costing
// less than h (deliveries plus external events, any subsequence of those
// to come) reproduces the violation, by brute force. (With maxH 5 and the
// reference traces too, 869 states pass; it takes minutes.)
func TestLowerBoundNeverCutsAReproducer(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	files := []string{"testdata/optima/raft-56.trace", "testdata/optima/raft-66.trace"}
	for _, bug := range raft.BugNames() {
		files = append(files, filepath.Join(tracesDir, bug+".min.trace"))
	}
	const maxH = 4 // the brute force costs (enabled deliveries)^(h-1)
	checked := 0
	for _, f := range files {
		tr, sys, err := record.ReadFile(f, cat)
		require.NoError(t, err)
		want := tr.Header.Violation
		sim, err := tr.Setup(sys).NewSim()
		require.NoError(t, err)
		check := func(s *record.Sim, k int, what string) {
			fut := future(tr, k)
			h := sys.LowerBound(record.Goal{View: s.View(), InFlight: s.InFlight(), Want: want, Future: fut, CountExternals: true})
			if h < 2 || h > maxH {
				return
			}
			checked++
			require.False(t, reachable(s, fut, want, h-1), "%s, %s: bound %d, but a cheaper continuation reproduces it", f, what, h)
		}
		for k, e := range tr.Events[:want.Event+1] {
			check(sim, k, fmt.Sprintf("after %d events", k))
			for _, p := range sim.Enabled(nil) {
				if e.Kind == record.Deliver && p.ID == e.ID {
					continue
				}
				off := sim.Fork()
				require.NoError(t, off.Deliver(p.ID))
				check(off, k, fmt.Sprintf("after %d events and %s", k, record.FormatMessage(p.Msg)))
			}
			require.NoError(t, runEvent(sim, e))
		}
	}
	t.Logf("%d states checked", checked)
	assert.Greater(t, checked, 100)
}
