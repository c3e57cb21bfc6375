package etcdraft_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex/etcdraft"
)

// fuzzArgs are the flags of docs/real-bugs.md's search; it found the bug
// at seed 375, the 375th run.
var fuzzArgs = []string{
	"fuzz", "--system", "etcdraft", "--opt", "read-weight=10", "--opt", "read-retry=true",
	"--opt", "restart-weight=0", "--opt", "partition-weight=0", "--externals", "60",
	"--max-steps", "1000", "--timer-prob", "0.1", "--mode", "walk",
}

// TestShippedFuzzTrace checks that the documented search's run at seed
// 375 writes the shipped fuzz trace byte for byte (the full search, from
// seed 1, takes about 40 s: too long for a test).
func TestShippedFuzzTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "found.trace")
	args := append(append([]string{}, fuzzArgs...), "--seed", "375", "--runs", "1", "-o", out)
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), record.NewCatalog(etcdraft.System()), args, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile("../traces/etcdraft-stale-read-index.trace")
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "the shipped fuzz trace is not what the documented search writes")
}

// TestShippedTracesReplay replays each shipped trace 50 times (demi
// replay --times 50), each to its recorded violation.
func TestShippedTracesReplay(t *testing.T) {
	for _, name := range []string{"etcdraft-stale-read-index.trace", "etcdraft-stale-read-index.min.trace", "etcdraft-stale-read-index.ref.trace"} {
		var stdout, stderr bytes.Buffer
		code := cli.Run(context.Background(), record.NewCatalog(etcdraft.System()),
			[]string{"replay", "--times", "50", filepath.Join("..", "traces", name)}, &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
		require.Contains(t, stdout.String(), "50/50 replays reproduced", name)
	}
}
