package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// oneLineError asserts a failed command printed exactly one line on
// stderr, naming want.
func oneLineError(t *testing.T, errs, want string) {
	t.Helper()
	assert.Equal(t, 1, strings.Count(errs, "\n"), "one line of error: %q", errs)
	assert.True(t, strings.HasPrefix(errs, "demi: "), errs)
	assert.Contains(t, errs, want)
}

func TestUnwritableOutputFailsBeforeAnyWork(t *testing.T) {
	in := fuzzRing(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	missing := filepath.Join(dir, "no-such-dir", "out.trace")
	underFile := filepath.Join(file, "out.trace")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"minimize -o directory", []string{"minimize", in, "-o", dir}, "-o " + dir + ": is a directory"},
		{"minimize -o missing directory", []string{"minimize", in, "-o", missing}, "-o " + missing + ": directory " + filepath.Dir(missing) + " does not exist"},
		{"minimize -o under a file", []string{"minimize", in, "-o", underFile}, "-o " + underFile + ": " + file + " is not a directory"},
		{"minimize --stats directory", []string{"minimize", in, "-o", filepath.Join(dir, "m.trace"), "--stats", dir}, "--stats " + dir + ": is a directory"},
		{"minimize --stats missing directory", []string{"minimize", in, "-o", filepath.Join(dir, "m.trace"), "--stats", missing}, "--stats " + missing + ": directory"},
		{"optimal -o directory", []string{"optimal", in, "--max-deliveries", "3", "-o", dir}, "-o " + dir + ": is a directory"},
		{"fuzz -o directory", []string{"fuzz", "--system", "tokenring", "--runs", "1", "-o", dir}, "-o " + dir + ": is a directory"},
		{"fuzz -o missing directory", []string{"fuzz", "--system", "tokenring", "--runs", "1", "-o", missing}, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out, "no work was done")
			oneLineError(t, errs, tc.want)
		})
	}
	assert.NoFileExists(t, filepath.Join(dir, "m.trace"), "the minimization never ran")
}

func TestUnwritableDirectoryFailsAtOnce(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere: permissions cannot make a directory unwritable")
	}
	in := fuzzRing(t)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	out := filepath.Join(dir, "m.trace")
	code, stdout, errs := run(t, "minimize", in, "-o", out)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	oneLineError(t, errs, "-o "+out+": cannot write in "+dir)
}

func TestDefaultOutputIsNeverOverwritten(t *testing.T) {
	in := fuzzRing(t)
	def := strings.TrimSuffix(in, ".trace") + ".min.trace"
	require.NoError(t, os.WriteFile(def, []byte("precious"), 0o644))
	code, out, errs := run(t, "minimize", in, "--strategy", "sts")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	oneLineError(t, errs, "output "+def+": exists; demi does not overwrite a file it was not told to write (pass -o "+def)
	b, err := os.ReadFile(def)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(b))

	// Named with -o, the same file is replaced.
	code, out, errs = run(t, "minimize", in, "--strategy", "sts", "-o", def)
	require.Equal(t, 0, code, out+errs)
	code, _, errs = run(t, "replay", def)
	assert.Equal(t, 0, code, errs)

	// fuzz's default name too.
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("tokenring.trace", []byte("precious"), 0o644))
	code, out, errs = run(t, "fuzz", "--system", "tokenring", "--runs", "1")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	oneLineError(t, errs, "output tokenring.trace: exists")
}

func TestFuzzFlagsOutOfRangeExitTwo(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-steps", "-5"}, "--max-steps -5: want 1 to 5000000"},
		{[]string{"--max-steps", "999999999"}, "--max-steps 999999999: want 1 to 5000000"},
		{[]string{"--runs", "0"}, "--runs 0: want at least 1"},
		{[]string{"--timer-prob", "2"}, "--timer-prob 2: want a probability"},
		{[]string{"--timer-prob", "NaN"}, "--timer-prob NaN: want a probability"},
		{[]string{"--external-prob", "-1"}, "--external-prob -1: want a probability"},
		{[]string{"--externals", "-2"}, "--externals -2: want 0 to"},
		{[]string{"--check-every", "0"}, "--check-every 0: want at least 1"},
		{[]string{"--min-deliveries", "5000"}, "--min-deliveries 5000: want 0 to --max-steps (3000)"},
		{[]string{"--budget", "-1s"}, "--budget -1s: want a positive duration"},
		{[]string{"--opt", "members=-3"}, "option members=-3 is out of range: system raft accepts 1 to 64"},
		{[]string{"--opt", "members=100000000"}, "option members=100000000 is out of range"},
		{[]string{"--opt", "client-weight=1000001"}, "option client-weight=1000001 is out of range: system raft accepts 0 to 1000"},
		{[]string{"--opt", "members=\x1b[31m"}, `option members: "\x1b[31m" is not an integer`},
	} {
		args := append([]string{"fuzz", "--system", "raft", "--bug", "raft-45"}, tc.args...)
		code, out, errs := run(t, args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		oneLineError(t, errs, tc.want)
		assert.NotContains(t, errs, "\x1b", "no raw control bytes")
	}
	assert.NoFileExists(t, "raft-45.trace")
}

// rewriteHeader returns the trace file at path with its header changed by f.
func rewriteHeader(t *testing.T, path string, f func(h map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	var h map[string]any
	require.NoError(t, dec.Decode(&h))
	rest := data[len(data)-dec.Buffered().(*bytes.Reader).Len():]
	f(h)
	head, err := msgpack.Marshal(h)
	require.NoError(t, err)
	return append(head, rest...)
}

func TestHugeHeaderOptionExitsTwo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.trace")
	data := rewriteHeader(t, "../examples/traces/raft-45.min.trace", func(h map[string]any) {
		opts := h["options"].([]any)
		for _, o := range opts {
			if m := o.(map[string]any); m["name"] == "members" {
				m["value"] = "100000000"
			}
		}
	})
	require.NoError(t, os.WriteFile(path, data, 0o644))
	for _, args := range [][]string{
		{"replay", path},
		{"show", path},
		{"show", "--rounds", path},
		{"minimize", path, "-o", filepath.Join(dir, "m.trace")},
		{"optimal", path, "--max-deliveries", "3", "-o", filepath.Join(dir, "o.trace")},
	} {
		code, out, errs := run(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out)
		oneLineError(t, errs, "option members=100000000 is out of range: system raft accepts 1 to 64")
	}
}

func TestMalformedEventExitsTwoEverywhere(t *testing.T) {
	dir := t.TempDir()
	tr, _, err := record.ReadFile("../examples/traces/raft-45.min.trace", catalog())
	require.NoError(t, err)
	for i, e := range tr.Events {
		if e.Kind == record.Send {
			tr.Events[i].To = "raft-\x1b9"
			break
		}
	}
	path := filepath.Join(dir, "bad.trace")
	require.NoError(t, tr.WriteFile(path))
	for _, args := range [][]string{
		{"replay", path},
		{"show", path},
		{"minimize", path, "-o", filepath.Join(dir, "m.trace")},
		{"optimal", path, "--max-deliveries", "3", "-o", filepath.Join(dir, "o.trace")},
	} {
		code, out, errs := run(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out)
		oneLineError(t, errs, `bad trace at event 4: send names receiver "raft-\x1b9", not a member of this raft run`)
		assert.NotContains(t, errs, "\x1b", "no raw control bytes")
	}
}

func TestFuzzFindsAViolationByDefault(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := run(t, "fuzz", "--system", "raft", "--bug", "raft-45")
	require.Equal(t, 0, code, out+errs)
	const regen = "regenerate with: demi fuzz --bug raft-45 --system raft --mode swarm --seed 163 --runs 1 -o raft-45.trace\n"
	assert.True(t, strings.HasSuffix(out, "wrote raft-45.trace\n"+regen), out)
	first, err := os.ReadFile("raft-45.trace")
	require.NoError(t, err)

	// The printed command writes the same trace, byte for byte.
	args := strings.Fields(strings.TrimPrefix(strings.TrimSuffix(regen, "\n"), "regenerate with: demi "))
	args[len(args)-1] = "again.trace"
	code, out, errs = run(t, args...)
	require.Equal(t, 0, code, out+errs)
	again, err := os.ReadFile("again.trace")
	require.NoError(t, err)
	assert.Equal(t, first, again)
	code, _, errs = run(t, "replay", "raft-45.trace")
	assert.Equal(t, 0, code, errs)
}

func TestFuzzBudgetRunsOut(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := run(t, "fuzz", "--system", "tokenring", "--max-steps", "50", "--budget", "300ms")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	oneLineError(t, errs, "(--budget 300ms ran out)")
	assert.NoFileExists(t, "tokenring.trace")
}

func TestOptimalChecksItsInputFirst(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "other.trace")
	data := rewriteHeader(t, "../examples/traces/raft-45.min.trace", func(h map[string]any) {
		h["violation"].(map[string]any)["fingerprint"] = "ElectionSafety(raft-3,raft-4)"
	})
	require.NoError(t, os.WriteFile(path, data, 0o644))
	code, out, errs := run(t, "optimal", path, "--max-deliveries", "20", "-o", filepath.Join(dir, "o.trace"))
	assert.Equal(t, 1, code)
	assert.Empty(t, out, "no search ran")
	oneLineError(t, errs, path+" does not reproduce its violation ElectionSafety(raft-3,raft-4) (got ElectionSafety(raft-1,raft-2)); nothing to search for")
}
