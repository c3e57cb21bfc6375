package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFuzzViolationFilter: --violation keeps only runs whose violation's
// fingerprint starts with it; the regenerate command keeps the flag.
func TestFuzzViolationFilter(t *testing.T) {
	dir := t.TempDir()
	args := []string{"fuzz", "--system", "tokenring", "--bug", "restore-token", "--mode", "walk", "--seed", "3",
		"--max-steps", "200", "--externals", "10", "--min-deliveries", "20"}

	code, out, errs := run(t, append(args, "--runs", "100", "--violation", "two-", "-o", filepath.Join(dir, "a.trace"))...)
	require.Equal(t, 0, code, out+errs)
	assert.Contains(t, out, "violation two-tokens\n")
	assert.Contains(t, out, "(seed 9, run 7)")
	assert.Contains(t, out, "--system tokenring --violation two- --seed 9 --runs 1")

	code, out, errs = run(t, append(args, "--runs", "10", "--violation", "no-token", "-o", filepath.Join(dir, "b.trace"))...)
	assert.Equal(t, 1, code, out)
	assert.Equal(t, "demi: no violation starting \"no-token\" with at least 20 deliveries in 10 run(s) of 200 steps from seed 3\n", errs)
}
