package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ringTrace writes a failing token ring trace named bug.trace in dir.
func ringTrace(t *testing.T, dir, bug string) string {
	t.Helper()
	path := filepath.Join(dir, bug+".trace")
	code, out, errs := run(t, "fuzz", "--system", "tokenring", "--bug", "restore-token", "--mode", "walk", "--seed", "3",
		"--runs", "100", "--max-steps", "200", "--externals", "10", "--min-deliveries", "20", "-o", path)
	require.Equal(t, 0, code, out+errs)
	return path
}

func TestOptimalCommand(t *testing.T) {
	dir := t.TempDir()
	in := ringTrace(t, dir, "ring")
	missing := filepath.Join(dir, "nope.trace")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // a line the output must contain (when the command succeeds)
		stderr string // the error (when it fails)
	}{
		{"finds a smaller schedule", []string{"optimal", in, "--max-deliveries", "30"}, 0, "smaller schedule found", ""},
		{"bound too small", []string{"optimal", in, "--max-deliveries", "1", "-o", filepath.Join(dir, "x.trace")}, 0, "no schedule with at most 1 deliveries", ""},
		{"--global is accepted (deprecated)", []string{"optimal", in, "--max-deliveries", "1", "--global", "-o", filepath.Join(dir, "x.trace")}, 0, "no schedule with at most 1 deliveries reproduces", ""},
		{"subsets: fewer externals too", []string{"optimal", in, "--max-deliveries", "0", "--subsets", "-o", filepath.Join(dir, "sub.trace")}, 0, "smaller schedule found: 3 deliveries and 5 externals", ""},
		{"bound defaults to one less than the input has (25)", []string{"optimal", in, "-o", filepath.Join(dir, "default.trace")}, 0, "smaller schedule found: 3 deliveries and 8 externals", ""},
		{"a finished search just below the input proves it optimal", []string{"optimal", filepath.Join(dir, "default.trace"), "-o", filepath.Join(dir, "x.trace")}, 0, "the input is optimal over its external events: no schedule with fewer than 3 deliveries reproduces the violation", ""},
		{"negative bound", []string{"optimal", in, "--max-deliveries", "-2"}, 2, "", "demi: --max-deliveries must be at least 0"},
		{"never overwrites the input", []string{"optimal", in, "--max-deliveries", "3", "-o", in}, 2, "", "demi: -o " + in + " is the input file; optimal never overwrites its input"},
		{"missing file", []string{"optimal", missing, "--max-deliveries", "3"}, 2, "", "demi: open " + missing + ": no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, c.args...)
			assert.Equal(t, c.code, code, out+errs)
			if c.code == 0 {
				assert.Contains(t, out, c.stdout)
			} else {
				assert.Equal(t, c.stderr+"\n", errs)
			}
		})
	}
	// The smaller schedule was written next to the input and replays.
	code, out, errs := run(t, "replay", filepath.Join(dir, "ring.optimal.trace"), "--times", "3")
	assert.Equal(t, 0, code, out+errs)
	_, err := os.Stat(filepath.Join(dir, "x.trace"))
	assert.True(t, os.IsNotExist(err), "nothing is written when nothing smaller is found")
}
