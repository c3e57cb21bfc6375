package spark_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

const tracesDir = "../traces"

func read(t *testing.T, name string) (*record.Trace, *record.System) {
	t.Helper()
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, name), record.NewCatalog(spark.System()))
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation, name)
	return tr, sys
}

func encode(t *testing.T, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

// TestShippedTraces checks every shipped fuzz trace: it carries its bug
// switch alone, is of the paper's size class (at least 300 deliveries),
// replays its violation every time, and with the switch off the same
// schedule does not fail the same way.
func TestShippedTraces(t *testing.T) {
	for _, bug := range spark.BugNames() {
		t.Run(bug, func(t *testing.T) {
			tr, sys := read(t, bug+".trace")
			assert.Equal(t, "true", tr.Header.OptionMap()[bug])
			for _, other := range spark.BugNames() {
				if other != bug {
					assert.NotEqual(t, "true", tr.Header.OptionMap()[other], "only %s is on", bug)
				}
			}
			assert.GreaterOrEqual(t, tr.Header.Deliveries, 300)
			results, err := replay.Repeat(context.Background(), sys, tr, 20)
			require.NoError(t, err)
			for i, r := range results {
				require.Nil(t, r.Divergence, "replay %d", i)
				require.True(t, r.Reproduced, "replay %d: %v", i, r.Violation)
			}

			fixed := *tr
			fixed.Header.Options = nil
			for _, o := range tr.Header.Options {
				if o.Name == bug {
					o.Value = "false"
				}
				fixed.Header.Options = append(fixed.Header.Options, o)
			}
			r, err := replay.Run(context.Background(), sys, &fixed)
			require.NoError(t, err)
			assert.False(t, r.Reproduced, "with %s off: %v", bug, r.Violation)
			assert.Nil(t, r.Violation, "with %s off", bug)
		})
	}
}

// TestReferenceTraces checks every shipped reference: it reproduces the
// shipped fuzz trace's violation exactly at its last event, and it is
// what the reference builder produces today.
func TestReferenceTraces(t *testing.T) {
	for _, bug := range spark.BugNames() {
		t.Run(bug, func(t *testing.T) {
			shipped, _ := read(t, bug+".trace")
			ref, sys := read(t, bug+".reference.trace")
			assert.Equal(t, shipped.Header.Violation.Fingerprint, ref.Header.Violation.Fingerprint)
			res, err := replay.Run(context.Background(), sys, ref)
			require.NoError(t, err)
			require.Nil(t, res.Divergence)
			require.True(t, res.Reproduced, "%v", res.Violation)
			assert.Equal(t, len(ref.Events), res.Events, "the violation shows only after the last event")

			built, err := spark.Reference(context.Background(), bug)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(tracesDir, bug+".reference.trace"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, encode(t, built)), "the shipped reference is stale: run scripts/gen-traces.sh")
		})
	}
}

// TestMinimizedTraces checks every shipped minimized trace: it replays
// the shipped trace's violation and is no larger than the reference.
func TestMinimizedTraces(t *testing.T) {
	for _, bug := range spark.BugNames() {
		t.Run(bug, func(t *testing.T) {
			shipped, _ := read(t, bug+".trace")
			ref, _ := read(t, bug+".reference.trace")
			min, sys := read(t, bug+".min.trace")
			res, err := replay.Run(context.Background(), sys, min)
			require.NoError(t, err)
			require.Nil(t, res.Divergence)
			require.True(t, res.Reproduced, "%v", res.Violation)
			assert.Equal(t, shipped.Header.Violation.Fingerprint, res.Violation.Fingerprint)
			assert.LessOrEqual(t, min.Header.Deliveries, ref.Header.Deliveries)
			assert.LessOrEqual(t, min.Header.Deliveries+min.Header.Externals, ref.Header.Deliveries+ref.Header.Externals)
		})
	}
}

// TestShippedTracesRegenerate runs the documented fuzz search of every bug
// (spark.ShippedFuzz, which scripts/gen-traces.sh uses) and expects the
// shipped file byte for byte.
func TestShippedTracesRegenerate(t *testing.T) {
	cases := spark.ShippedFuzz()
	require.Len(t, cases, len(spark.BugNames()))
	for _, c := range cases {
		t.Run(c.Bug, func(t *testing.T) {
			tr, _, err := record.Search(context.Background(), spark.System(), c.Options(), c.Config)
			require.NoError(t, err)
			require.NotNil(t, tr, "no seed from %d fails after %d deliveries", c.Config.Seed, c.Config.MinDeliveries)
			want, err := os.ReadFile(filepath.Join(tracesDir, c.Bug+".trace"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, encode(t, tr)), "the shipped trace is stale: run scripts/gen-traces.sh")
		})
	}
}

var offRuns = flag.Int("off-runs", 150, "TestCorrectSparkStaysCorrect: fuzz runs per bug configuration")

// TestCorrectSparkStaysCorrect fuzzes each bug's shipped configuration with
// the switch off: no run may end in a violation. docs/examples.md reports
// the same check over 2,000 runs per bug (-off-runs 2000); by default the
// test runs 150 to stay fast.
func TestCorrectSparkStaysCorrect(t *testing.T) {
	runs := *offRuns
	if testing.Short() {
		runs = 20
	}
	for _, c := range spark.ShippedFuzz() {
		t.Run(c.Bug, func(t *testing.T) {
			o := c.Options()
			o[c.Bug] = "false"
			for seed := uint64(1); seed <= uint64(runs); seed++ {
				f := c.Config.FuzzConfig
				f.Seed = seed
				tr, err := record.Fuzz(context.Background(), spark.System(), o, f)
				require.NoError(t, err)
				require.Nil(t, tr.Header.Violation, "seed %d", seed)
			}
		})
	}
}
