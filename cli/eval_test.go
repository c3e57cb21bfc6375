package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runRing(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), record.NewCatalog(tokenring.System()), args, &out, &errb)
	return code, out.String(), errb.String()
}

// ringTrace writes a failing token ring trace named bug.trace in dir.
func ringTrace(t *testing.T, dir, bug string) string {
	t.Helper()
	path := filepath.Join(dir, bug+".trace")
	code, out, errs := runRing(t, "fuzz", "--system", "tokenring", "--bug", "restore-token", "--seed", "3",
		"--runs", "100", "--max-steps", "200", "--externals", "10", "--min-deliveries", "20", "-o", path)
	require.Equal(t, 0, code, out+errs)
	return path
}

func TestOptimalCommand(t *testing.T) {
	dir := t.TempDir()
	in := ringTrace(t, dir, "ring")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"finds a smaller schedule", []string{"optimal", in, "--max-deliveries", "30"}, 0, "smaller schedule found"},
		{"bound too small", []string{"optimal", in, "--max-deliveries", "1", "-o", filepath.Join(dir, "x.trace")}, 0, "no schedule with at most 1 deliveries"},
		{"bound required", []string{"optimal", in}, 2, ""},
		{"negative bound", []string{"optimal", in, "--max-deliveries", "-2"}, 2, ""},
		{"never overwrites the input", []string{"optimal", in, "--max-deliveries", "3", "-o", in}, 2, ""},
		{"missing file", []string{"optimal", filepath.Join(dir, "nope.trace"), "--max-deliveries", "3"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runRing(t, c.args...)
			assert.Equal(t, c.code, code, out+errs)
			assert.Contains(t, out, c.want)
		})
	}
	// The smaller schedule was written next to the input and replays.
	code, out, errs := runRing(t, "replay", filepath.Join(dir, "ring.optimal.trace"), "--times", "3")
	assert.Equal(t, 0, code, out+errs)
	_, err := os.Stat(filepath.Join(dir, "x.trace"))
	assert.True(t, os.IsNotExist(err), "nothing is written when nothing smaller is found")
}

func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	ringTrace(t, dir, "ring")
	md, js, img := filepath.Join(dir, "doc", "e.md"), filepath.Join(dir, "doc", "e.json"), filepath.Join(dir, "doc", "img")
	code, out, errs := runRing(t, "eval", "--traces", dir, "--budget", "2s", "--peer-budget", "1s", "--optimal-budget", "2s",
		"--no-scaling", "-j", "1", "-o", md, "--json", js, "--img", img, "--notes", "")
	require.Equal(t, 0, code, out+errs)
	assert.Contains(t, out, "ring")
	assert.FileExists(t, md)
	assert.FileExists(t, filepath.Join(img, "ring-pace.png"))
	var rep map[string]any
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Len(t, rep["rows"], 1)

	// Re-rendering from the JSON with notes needs no measuring.
	notes := filepath.Join(dir, "notes.md")
	require.NoError(t, os.WriteFile(notes, []byte("Why it went this way."), 0o644))
	again := filepath.Join(dir, "again.md")
	code, out, errs = runRing(t, "eval", "--from-json", js, "--notes", notes, "-o", again)
	require.Equal(t, 0, code, out+errs)
	b, err = os.ReadFile(again)
	require.NoError(t, err)
	assert.Contains(t, string(b), "## Analysis\n\nWhy it went this way.")

	for _, bad := range [][]string{
		{"eval", "--traces", dir, "--bugs", "no-such-bug", "-o", ""},
		{"eval", "--traces", filepath.Join(dir, "missing")},
		{"eval", "--traces", dir, "--budget", "0s"},
		{"eval", "--traces", dir, "--scaling-lengths", "10,x"},
		{"eval", "--from-json", filepath.Join(dir, "missing.json"), "-o", again},
	} {
		code, out, errs := runRing(t, bad...)
		assert.Equal(t, 2, code, "%v: %s%s", bad, out, errs)
	}
}
