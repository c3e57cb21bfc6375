package paxos_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/record"
)

// TestLowerBoundAdmissible checks the bound along the shipped Paxos traces
// (fuzzed and minimized) and along fuzzed runs of other seeds: at every
// state it is at most what the trace still spends to its violation. Before
// the first event of a minimized trace it is what each of the two members
// needs from nothing: its Propose, then a Prepare and a Promise and an
// Accept and an Accepted for each of two other members (a majority of
// five with itself), and the Propose's send with external events.
func TestLowerBoundAdmissible(t *testing.T) {
	cat := record.NewCatalog(paxos.System())
	var traces []*record.Trace
	var names []string
	for _, bug := range paxos.System().Bugs() {
		for _, kind := range []string{".trace", ".min.trace"} {
			tr, _, err := record.ReadFile(filepath.Join("../traces", "paxos-"+bug+kind), cat)
			require.NoError(t, err)
			traces, names = append(traces, tr), append(names, "paxos-"+bug+kind)
		}
		for seed := uint64(1000); seed < 1003; seed++ {
			tr, _, err := record.Search(context.Background(), paxos.System(), map[string]string{bug: "true"},
				record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: seed, MaxSteps: 400}, Runs: 200})
			require.NoError(t, err)
			if tr != nil {
				traces, names = append(traces, tr), append(names, bug+" fuzzed")
			}
		}
	}
	require.Greater(t, len(traces), 4, "fuzzed runs found violations too")
	sys := paxos.System()
	for i, tr := range traces {
		t.Run(names[i], func(t *testing.T) { demitest.CheckLowerBound(t, sys, tr) })
	}
	tr, _, err := record.ReadFile("../traces/paxos-forget-accepted.min.trace", cat)
	require.NoError(t, err)
	assert.Equal(t, [2]int{2 * (1 + 8), 2 * (2 + 8)}, demitest.CheckLowerBound(t, sys, tr))
}
