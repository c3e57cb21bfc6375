package raft_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// TestLowerBoundBelowSearchOnShipped compares the bound with the optimum
// search without it (exactBelowBound: optimal.SearchFrom with the
// system's bound off, every schedule and every subsequence of the external
// events to come) at every state along every shipped minimized and
// reference Raft trace and the optima in testdata: no reproducer may cost
// less than the bound, up to a cost of 4 (DEMI_BOUND_BUDGET raises it:
// 5 takes about 10 CPU seconds). These states are where the bound is large (the whole
// election and commit still to come), so the voters shared out and the
// commit costs are what it sums there.
func TestLowerBoundBelowSearchOnShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("exact searches")
	}
	budget := 4
	if s := os.Getenv("DEMI_BOUND_BUDGET"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "DEMI_BOUND_BUDGET")
		budget = n
	}
	cat := record.NewCatalog(raft.System())
	files := []string{"testdata/optima/raft-56.trace", "testdata/optima/raft-66.trace"}
	for _, bug := range raft.BugNames() {
		files = append(files, filepath.Join(tracesDir, bug+".min.trace"), filepath.Join(tracesDir, bug+".reference.trace"))
	}
	total, levels := 0, 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, sys, err := record.ReadFile(f, cat)
			require.NoError(t, err)
			var cuts []int
			for k := 0; k <= tr.Header.Violation.Event; k++ {
				cuts = append(cuts, k)
			}
			n, l := exactBelowBound(t, sys, tr, cuts, budget)
			total, levels = total+n, levels+l
		})
	}
	t.Logf("%d states, %d cost levels searched exactly (budget %d)", total, levels, budget)
	assert.Greater(t, total, 200)
}
