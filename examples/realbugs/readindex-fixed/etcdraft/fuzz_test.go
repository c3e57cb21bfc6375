package etcdraft_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex-fixed/etcdraft"
)

// TestFixedReleaseFuzz runs the first 20 runs of docs/real-bugs.md's
// search (which found the bug with v3.6.0 at run 375) against v3.7.0 and
// expects no violation (exit 1). The page reports 2,000 runs; a test runs
// fewer.
func TestFixedReleaseFuzz(t *testing.T) {
	args := []string{
		"fuzz", "--system", "etcdraft", "--opt", "read-weight=10", "--opt", "read-retry=true",
		"--opt", "restart-weight=0", "--opt", "partition-weight=0", "--externals", "60",
		"--max-steps", "1000", "--timer-prob", "0.1", "--mode", "walk", "--seed", "1", "--runs", "20",
		"-o", filepath.Join(t.TempDir(), "none.trace"),
	}
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), record.NewCatalog(etcdraft.System()), args, &stdout, &stderr)
	require.Equal(t, 1, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	require.Contains(t, stderr.String(), "no violation", stderr.String())
}
