package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runShipped runs the CLI on the shipped catalog (every example system).
func runShipped(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), examples.Catalog(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// setHeaderOption returns the trace at path with option name set to value
// in its header.
func setHeaderOption(t *testing.T, path, name, value string) []byte {
	t.Helper()
	return rewriteHeader(t, path, func(h map[string]any) {
		for _, o := range h["options"].([]any) {
			if m := o.(map[string]any); m["name"] == name {
				m["value"] = value
			}
		}
	})
}

// Issue 27 item 1: an option every system used to trust (etcdraft's
// members had no bounds) is refused by every command, from a flag and
// from a trace header, before anything is built: exit 2, one line.
func TestUnboundedOptionRefusedEverywhere(t *testing.T) {
	const in = "../examples/traces/etcdraft-apply-before-commit.min.trace"
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.trace")
	require.NoError(t, os.WriteFile(huge, setHeaderOption(t, in, "members", "1000000"), 0o644))
	o := filepath.Join(dir, "o.out")
	commands := func(path string) [][]string {
		return [][]string{
			{"replay", path},
			{"replay", "--step", path},
			{"show", path},
			{"show", "--json", path},
			{"show", "--rounds", path},
			{"show", "--format", "markdown", path},
			{"minimize", path, "-o", o},
			{"optimal", path, "-o", o},
			{"check", path, "-o", o},
			{"report", path, "-o", o},
		}
	}
	const want = "option members=1000000 is out of range: system etcdraft accepts 1 to 9"
	for _, args := range commands(huge) {
		code, out, errs := runShipped(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		oneLineError(t, errs, want)
	}
	for _, args := range append(commands(in), []string{"fuzz", "--system", "etcdraft", "-o", o}) {
		if args[0] == "optimal" || args[0] == "report" {
			continue // they take no --opt
		}
		args = append(args, "--opt", "members=1000000")
		code, out, errs := runShipped(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		oneLineError(t, errs, want)
	}
	code, _, errs := runShipped(t, "fuzz", "--system", "etcdraft", "--opt", "members=4611686018427387904", "-o", o)
	assert.Equal(t, 2, code)
	oneLineError(t, errs, "option members=4611686018427387904 is out of range")
	assert.NoFileExists(t, o)
}
