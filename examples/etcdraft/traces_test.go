package etcdraft_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

const tracesDir = "../traces"

// replays is how many times the tests replay each shipped trace; the
// documented check (docs/etcdraft.md) is `demi replay --times 50`.
const replays = 5

func read(t testing.TB, name string) (*record.Trace, *record.System) {
	t.Helper()
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, name), record.NewCatalog(etcdraft.System()))
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	return tr, sys
}

func replayAll(t *testing.T, sys *record.System, tr *record.Trace, times int) {
	t.Helper()
	results, err := replay.Repeat(context.Background(), sys, tr, times)
	require.NoError(t, err)
	require.Len(t, results, times)
	for i, r := range results {
		require.Nil(t, r.Divergence, "replay %d", i)
		require.True(t, r.Reproduced, "replay %d: %v", i, r.Violation)
		assert.Equal(t, tr.Header.Violation.Fingerprint, r.Violation.Fingerprint)
		assert.Equal(t, len(tr.Events), r.Events, "the violation shows after the last event")
	}
}

// TestShippedTraces checks every bug's shipped fuzz trace: at least 1,000
// deliveries, only its bug switch on, replays its violation every time,
// and the same schedule with the switch off does not fail that way.
func TestShippedTraces(t *testing.T) {
	for _, bug := range etcdraft.BugNames() {
		t.Run(bug, func(t *testing.T) {
			tr, sys := read(t, etcdraft.TraceName(bug)+".trace")
			assert.Equal(t, "etcdraft", sys.Name)
			opts := tr.Header.OptionMap()
			for _, other := range etcdraft.BugNames() {
				assert.Equal(t, other == bug, opts[other] == "true", other)
			}
			assert.GreaterOrEqual(t, tr.Header.Deliveries, 1000)
			replayAll(t, sys, tr, replays)

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
		})
	}
}

// TestReferenceTraces checks every shipped reference trace: it is what the
// reference builder produces today, it is shorter than the fuzz trace and
// replays the same violation.
func TestReferenceTraces(t *testing.T) {
	for _, bug := range etcdraft.BugNames() {
		t.Run(bug, func(t *testing.T) {
			shipped, _ := read(t, etcdraft.TraceName(bug)+".trace")
			name := etcdraft.TraceName(bug) + ".reference.trace"
			ref, sys := read(t, name)
			assert.Equal(t, shipped.Header.Violation.Fingerprint, ref.Header.Violation.Fingerprint)
			assert.Less(t, ref.Header.Deliveries, 20)
			replayAll(t, sys, ref, replays)

			built, err := etcdraft.Reference(context.Background(), bug)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(tracesDir, name))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, encode(t, built)), "the shipped reference is stale: run scripts/gen-traces.sh")
		})
	}
}

// minimized are the sizes of the shipped minimized traces (deliveries,
// externals), as docs/examples.md reports them.
var minimized = map[string][2]int{
	etcdraft.BugSendBeforePersist:   {6, 4},
	etcdraft.BugApplyBeforeCommit:   {6, 3},
	etcdraft.BugSkipSnapshotPersist: {11, 5},
	etcdraft.BugHardStateFirst:      {11, 4},
	etcdraft.BugLeaderLocalRead:     {12, 5},
}

// TestMinimizedTraces checks every shipped minimized trace: it replays the
// fuzz trace's violation, has the documented size, and at most 1.25 times
// the reference's deliveries and externals.
func TestMinimizedTraces(t *testing.T) {
	for _, bug := range etcdraft.BugNames() {
		t.Run(bug, func(t *testing.T) {
			shipped, _ := read(t, etcdraft.TraceName(bug)+".trace")
			ref, _ := read(t, etcdraft.TraceName(bug)+".reference.trace")
			min, sys := read(t, etcdraft.TraceName(bug)+".min.trace")
			assert.Equal(t, shipped.Header.Violation.Fingerprint, min.Header.Violation.Fingerprint)
			assert.Equal(t, shipped.Header.Seed, min.Header.Seed)
			assert.Equal(t, minimized[bug], [2]int{min.Header.Deliveries, min.Header.Externals})
			within := float64(min.Header.Deliveries) <= 1.25*float64(ref.Header.Deliveries) &&
				float64(min.Header.Externals) <= 1.25*float64(ref.Header.Externals)
			assert.True(t, within, "%d/%d deliveries, %d/%d externals against the reference",
				min.Header.Deliveries, ref.Header.Deliveries, min.Header.Externals, ref.Header.Externals)
			replayAll(t, sys, min, replays)
		})
	}
}

func encode(t *testing.T, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

// TestShippedTracesRegenerate runs the documented fuzz search of every bug
// (etcdraft.ShippedFuzz, which scripts/gen-traces.sh uses) and expects the
// shipped file byte for byte.
func TestShippedTracesRegenerate(t *testing.T) {
	cases := etcdraft.ShippedFuzz()
	require.Len(t, cases, len(etcdraft.BugNames()))
	for _, c := range cases {
		t.Run(c.Bug, func(t *testing.T) {
			tr, _, err := record.Search(context.Background(), etcdraft.System(), c.Options(), c.Config)
			require.NoError(t, err)
			require.NotNil(t, tr, "no violation after %d deliveries in %d runs", c.Config.MinDeliveries, c.Config.Runs)
			want, err := os.ReadFile(filepath.Join(tracesDir, etcdraft.TraceName(c.Bug)+".trace"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, encode(t, tr)), "the shipped trace is stale: run scripts/gen-traces.sh")
		})
	}
}
