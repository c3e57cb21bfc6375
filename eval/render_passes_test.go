package eval_test

import (
	"bytes"
	"testing"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAfterLastCountsFromTheLastChangeOfSize(t *testing.T) {
	pace := []minimize.PacePoint{
		{Steps: 0, Deliveries: 100, Externals: 10},
		{Steps: 300, Deliveries: 20, Externals: 5},
		{Steps: 400, Deliveries: 20, Externals: 5}, // same size: not an improvement
	}
	assert.InDelta(t, 0.7, eval.AfterLast(pace, 1000), 1e-9)
	assert.Zero(t, eval.AfterLast(nil, 0))
}

func TestSumPassesInTableOrder(t *testing.T) {
	runs := [][]minimize.PassStats{
		{{Name: minimize.StageRetarget, Tier: "move", Calls: 2, Steps: 600, Successes: 1, Removed: 3},
			{Name: minimize.StageProvenance, Tier: "removal", Calls: 1, Steps: 100, Successes: 1, Removed: 10}},
		{{Name: minimize.StageRetarget, Tier: "move", Calls: 1, Steps: 300}},
		// Called in a fork only, where it paid: not a run that called it, a run it paid in a fork.
		{{Name: minimize.StageLateStart, Tier: "search", Fork: minimize.ForkStats{Calls: 2, Steps: 50, Successes: 1, Removed: 4}}},
	}
	ev, all := eval.SumPasses(runs)
	assert.Equal(t, int64(1000), all)
	assert.Equal(t, []eval.PassEvidence{
		{Name: minimize.StageProvenance, Tier: "removal", Runs: 1, Paid: 1, Calls: 1, Removed: 10, Steps: 100},
		{Name: minimize.StageRetarget, Tier: "move", Runs: 2, Paid: 1, Calls: 3, Removed: 3, Steps: 900},
		{Name: minimize.StageLateStart, Tier: "search", ForkPaid: 1},
	}, ev)
}

func TestMarkdownPasses(t *testing.T) {
	rep := &eval.Report{Budget: "2m0s", Workers: 2,
		Rows: []eval.Row{{Bug: "raft-45",
			Stages: []minimize.StageStats{{Name: "initial"}, {Name: "retarget", Steps: 4_000_000}},
			Pace:   []minimize.PacePoint{{Steps: 0, Deliveries: 50, Externals: 9}, {Steps: 1_000_000, Deliveries: 20, Externals: 8}},
			Passes: []minimize.PassStats{{Name: minimize.StageRetarget, Tier: "move", Calls: 3, Steps: 4_000_000, Successes: 1, Removed: 30}}}},
		Fresh: []eval.FreshRow{{Bug: "raft-45", Runs: []eval.FreshRun{{AfterLast: 0.2,
			Passes: []minimize.PassStats{{Name: minimize.StageLateStart, Tier: "search", Calls: 1, Steps: 1_000_000,
				Fork: minimize.ForkStats{Calls: 1, Steps: 10, Successes: 1, Removed: 2}}}}}}},
	}
	var buf bytes.Buffer
	require.NoError(t, eval.Markdown(&buf, rep))
	out := buf.String()
	assert.Contains(t, out, "summed over the 1 shipped traces' runs (Table 2) and the 1 runs of the fresh-seed study")
	assert.Contains(t, out, "| retarget | move | 1 | 3 | 4.0 M (80.0%) | 1 | 30 | 0 |")
	assert.Contains(t, out, "| late-start | search | 1 | 1 | 1.0 M (20.0%) | 0 | 0 | 1 |")
	assert.Contains(t, out, "median against the target ≤ 0.30: shipped traces 0.75 over 1 runs (worst 0.75; **missed**); fresh seeds 0.20 over 1 runs (worst 0.20; met).")
}
