package etcdraft33_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/prevote/etcdraft33"
)

// fuzzArgs are the flags of docs/real-bugs.md's search.
var fuzzArgs = []string{
	"fuzz", "--system", "etcdraft33", "--mode", "walk", "--max-steps", "300", "--externals", "10",
	"--timer-prob", "0.01", "--seed", "1",
}

const (
	fuzzTrace = "../traces/etcdraft33-prevote.trace"
	minTrace  = "../traces/etcdraft33-prevote.min.trace"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), record.NewCatalog(etcdraft33.System()), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestLibraryRelease checks that this module builds the affected release,
// from the module proxy (go list -m: no replace directive).
func TestLibraryRelease(t *testing.T) {
	require.Equal(t, "v3.3.13+incompatible", realbugstest.Release(t, "github.com/coreos/etcd"))
}

// TestShippedFuzzTrace runs the documented search from seed 1: it finds
// the bug at seed 10 and writes the shipped fuzz trace byte for byte.
func TestShippedFuzzTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "found.trace")
	code, stdout, stderr := run(t, append(append([]string{}, fuzzArgs...), "--budget", "2m", "-o", out)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "(seed 10, run 10)")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile(fuzzTrace)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "the shipped fuzz trace is not what the documented search writes")
}

// TestPlainFuzzFindsIt runs demi fuzz with the system's defaults (swarm
// mode, whose timer probabilities the system bounds): the first run
// breaks Liveness(leader).
func TestPlainFuzzFindsIt(t *testing.T) {
	code, stdout, stderr := run(t, "fuzz", "--system", "etcdraft33", "--seed", "1", "--runs", "1",
		"-o", filepath.Join(t.TempDir(), "found.trace"))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "violation Liveness(leader)")
	require.Contains(t, stdout, "(seed 1, run 1)")
}

// TestShippedTracesReplay replays each shipped trace 50 times (demi
// replay --times 50), each to Liveness(leader).
func TestShippedTracesReplay(t *testing.T) {
	for _, path := range []string{fuzzTrace, minTrace, referenceTrace} {
		code, stdout, stderr := run(t, "replay", "--times", "50", path)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, "50/50 replays reproduced Liveness(leader)", path)
	}
}

// TestMinimizeWithinTarget minimizes the shipped fuzz trace with default
// settings: the same violation, at most 1.25 times the reference's
// deliveries and events (issue 31's target; the shipped minimized trace
// is 69 deliveries and 4 externals, as the reference).
func TestMinimizeWithinTarget(t *testing.T) {
	got := realbugstest.MinimizeWithinTarget(t, etcdraft33.System(), fuzzTrace, referenceTrace)
	require.Equal(t, "Liveness(leader)", got.Violation.Fingerprint)
}
