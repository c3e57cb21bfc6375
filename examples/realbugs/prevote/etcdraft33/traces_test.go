package etcdraft33_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/minimize"
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
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(gobin, "list", "-m", "-f", "{{.Version}} {{.Replace}}", "github.com/coreos/etcd").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "v3.3.13+incompatible <nil>\n", string(out))
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
// settings: at most 1.25 times the reference's deliveries, the same
// violation, and no larger than the shipped minimized trace.
func TestMinimizeWithinTarget(t *testing.T) {
	cat := record.NewCatalog(etcdraft33.System())
	tr, sys, err := record.ReadFile(fuzzTrace, cat)
	require.NoError(t, err)
	ref, _, err := record.ReadFile(referenceTrace, cat)
	require.NoError(t, err)
	shipped, _, err := record.ReadFile(minTrace, cat)
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{})
	require.NoError(t, err)
	got := res.Trace.Header
	require.Equal(t, "Liveness(leader)", got.Violation.Fingerprint)
	require.LessOrEqual(t, 4*got.Deliveries, 5*ref.Header.Deliveries, "more than 1.25 times the reference")
	require.LessOrEqual(t, got.Deliveries+len(res.Trace.Externals()), shipped.Header.Deliveries+len(shipped.Externals()))
}
