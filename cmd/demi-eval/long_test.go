package main

import (
	"testing"

	"github.com/demi-project/demi/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongCasesAreTheDocumentedFlags: the long-trace study fuzzes with the
// flags docs/minimization.md gives for 100,000 deliveries.
func TestLongCasesAreTheDocumentedFlags(t *testing.T) {
	cases := longCases([]string{"raft-45", "raft-42", "raft-58a"}, 100_000)
	require.Len(t, cases, 3)
	args := map[string]eval.LongCase{}
	for _, c := range cases {
		args[c.Bug] = c
		assert.Equal(t, uint64(1), c.Search.Seed)
		assert.Equal(t, 150_000, c.Search.MaxSteps)
		assert.Equal(t, 100_000, c.Search.MinDeliveries)
	}
	assert.Zero(t, args["raft-45"].Search.ExternalProb, "the default: 2 x externals / max-steps")
	assert.Equal(t, 2_000, args["raft-45"].Search.MaxExternals)
	assert.Equal(t, 2_000, args["raft-42"].Search.MaxExternals)
	assert.InDelta(t, 0.01, args["raft-42"].Search.ExternalProb, 1e-12)
	assert.Equal(t, "1", args["raft-58a"].Options["restart-weight"], "the shipped run's options")
	assert.InDelta(t, 0.07, args["raft-58a"].Search.ExternalProb, 1e-12)
	assert.Equal(t, 10_000, args["raft-58a"].Search.MaxExternals)
	short := longCases([]string{"raft-42"}, 10_000)
	assert.InDelta(t, 0.1, short[0].Search.ExternalProb, 1e-12, "scaled with the length")
	assert.Equal(t, 200, short[0].Search.MaxExternals)
}

func TestLongFlagsAreValidated(t *testing.T) {
	for _, args := range [][]string{{"--long", "-1"}, {"--long", "2000000"}, {"--long-runs", "0"}, {"--long-budget", "0s"},
		{"--long-fuzz-budget", "-1s"}, {"--long-cancel-after", "-1s"}} {
		code, _, errs := runEval(t, append(args, "--out", t.TempDir())...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errs, "--long must be 0 to 1000000, --long-runs at least 1, --long-budget and --long-fuzz-budget positive, --long-cancel-after at least 0", args)
	}
}
