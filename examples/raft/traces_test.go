package raft_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

const tracesDir = "../traces"

// TestShippedTraces checks every shipped fuzz trace: it decodes, is of the
// paper's size class (at least 300 deliveries), carries its bug switch, and
// replays its violation every time.
func TestShippedTraces(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	for _, bug := range raft.BugNames() {
		t.Run(bug, func(t *testing.T) {
			tr, sys, err := record.ReadFile(filepath.Join(tracesDir, bug+".trace"), cat)
			require.NoError(t, err)
			require.NotNil(t, tr.Header.Violation)
			assert.Equal(t, "raft", sys.Name)
			assert.Equal(t, "true", tr.Header.OptionMap()[bug], "the trace turns on %s", bug)
			for _, other := range raft.BugNames() {
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
				assert.Equal(t, tr.Header.Violation.Fingerprint, r.Violation.Fingerprint)
			}

			// The same schedule with the switch off (same network) does not
			// fail the same way: the bug's code path is what breaks it.
			fixed := *tr
			fixed.Header.Options = nil
			for _, o := range tr.Header.Options {
				if o.Name == bug {
					o.Value = "false"
				}
				fixed.Header.Options = append(fixed.Header.Options, o)
			}
			if bug == raft.Bug66 {
				fixed.Header.Options = append(fixed.Header.Options, record.Option{Name: raft.OptUnordered, Value: "true"})
			}
			r, err := replay.Run(context.Background(), sys, &fixed)
			require.NoError(t, err)
			assert.False(t, r.Reproduced, "with %s off: %v", bug, r.Violation)
		})
	}
}

// TestReferenceTraces checks every shipped reference trace: it replays the
// same violation fingerprint as the bug's shipped fuzz trace, and it is the
// trace the reference builder produces today.
func TestReferenceTraces(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	for _, bug := range raft.BugNames() {
		t.Run(bug, func(t *testing.T) {
			shipped, _, err := record.ReadFile(filepath.Join(tracesDir, bug+".trace"), cat)
			require.NoError(t, err)
			path := filepath.Join(tracesDir, bug+".reference.trace")
			ref, sys, err := record.ReadFile(path, cat)
			require.NoError(t, err)
			require.NotNil(t, ref.Header.Violation)
			assert.Equal(t, shipped.Header.Violation.Fingerprint, ref.Header.Violation.Fingerprint)
			assert.Less(t, ref.Header.Deliveries, shipped.Header.Deliveries)
			res, err := replay.Run(context.Background(), sys, ref)
			require.NoError(t, err)
			require.Nil(t, res.Divergence)
			require.True(t, res.Reproduced, "%v", res.Violation)
			assert.Equal(t, shipped.Header.Violation.Fingerprint, res.Violation.Fingerprint)
			assert.Equal(t, len(ref.Events), res.Events, "the violation shows only after the last event")

			built, err := raft.Reference(context.Background(), bug)
			require.NoError(t, err)
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			got := encode(t, built)
			assert.True(t, bytes.Equal(want, got), "the shipped reference is stale: run scripts/gen-traces.sh")
		})
	}
}

func encode(t *testing.T, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

// TestShippedTracesRegenerate runs the documented fuzz run of every bug
// (raft.ShippedFuzz, which scripts/gen-traces.sh uses) and expects the
// shipped file byte for byte: the traces are a function of code and seed.
func TestShippedTracesRegenerate(t *testing.T) {
	cases := raft.ShippedFuzz()
	require.Len(t, cases, len(raft.BugNames()))
	for _, c := range cases {
		t.Run(c.Bug, func(t *testing.T) {
			tr, runs, err := record.Search(context.Background(), raft.System(), c.Options(), c.Config)
			require.NoError(t, err)
			require.Equal(t, 1, runs)
			require.NotNil(t, tr, "seed %d no longer fails after %d deliveries", c.Config.Seed, c.Config.MinDeliveries)
			want, err := os.ReadFile(filepath.Join(tracesDir, c.Bug+".trace"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, encode(t, tr)), "the shipped trace is stale: run scripts/gen-traces.sh")
		})
	}
}
