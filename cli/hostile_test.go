package cli_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/record"
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

// runWith runs the CLI on cat with stdin and ctx, failing the test if it
// does not return within 20 seconds (a hang).
func runWith(t *testing.T, ctx context.Context, cat *record.Catalog, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	root := cli.New(cat, &out, &errb)
	if stdin != nil {
		root.SetIn(stdin)
	}
	done := make(chan int, 1)
	go func() { done <- cli.Execute(ctx, root, args, &errb) }()
	select {
	case code := <-done:
		return code, out.String(), errb.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("%v: no answer within 20 s", args)
		return 0, "", ""
	}
}

// Item 2: a FIFO (or a device, a directory) as any input is refused up
// front: no command waits for a writer.
func TestSpecialFilesRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.trace")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	o := filepath.Join(dir, "o.out")
	const min = "../examples/traces/raft-45.min.trace"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", fifo}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"replay", "--step", fifo}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"show", fifo}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"minimize", fifo, "-o", o}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"optimal", fifo, "-o", o}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"check", fifo, "-o", o}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"report", fifo, "-o", o}, "f.trace is a named pipe (FIFO), not a regular file"},
		{[]string{"report", min, "-o", o, "--stats", fifo}, "--stats: " + fifo + " is a named pipe (FIFO), not a regular file"},
		{[]string{"show", "/dev/zero"}, "/dev/zero is a character device, not a regular file"},
		{[]string{"show", dir}, dir + " is a directory, not a regular file"},
	} {
		code, out, errs := runWith(t, context.Background(), catalog(), strings.NewReader(""), tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		oneLineError(t, errs, tc.want)
	}
	assert.NoFileExists(t, o)
}

// Item 3: every output is checked against the inputs and the other
// outputs before any work; the input is never touched.
func TestOutputsDistinctFromInputsAndEachOther(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trace")
	orig, err := os.ReadFile("../examples/traces/raft-45.min.trace")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, orig, 0o644))
	o := filepath.Join(dir, "o.trace")
	stats := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(stats, []byte(`{"stages":[{"name":"x"}]}`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"minimize", in, "-o", o, "--stats", in}, "--stats " + in + " is the input file"},
		{[]string{"minimize", in, "-o", o, "--stats", o}, "--stats " + o + " is also the -o file"},
		{[]string{"minimize", in, "--stats", filepath.Join(dir, "in.min.trace")}, "is also the output file"},
		{[]string{"minimize", in, "-o", filepath.Join(dir, ".", "in.trace")}, "is the input file"},
		{[]string{"report", in, "-o", stats, "--stats", stats}, "-o " + stats + " is the --stats file"},
		{[]string{"check", in, "-o", in}, "is the input file"},
		{[]string{"optimal", in, "-o", in}, "is the input file"},
	} {
		code, _, errs := run(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		oneLineError(t, errs, tc.want)
	}
	got, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, orig, got, "the input is unchanged")
	assert.NoFileExists(t, o)
}

// Item 4: -j is bounded before any work (an absurd value used to build a
// checker per worker); item 9: optimal's flags mean what they say.
func TestJobsAndSearchFlagsBounded(t *testing.T) {
	const min = "../examples/traces/raft-45.min.trace"
	o := filepath.Join(t.TempDir(), "o.trace")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"minimize", min, "-o", o, "-j", "9223372036854775807", "--budget", "5s"}, "-j 9223372036854775807: want 1 to 256"},
		{[]string{"minimize", min, "-o", o, "-j", "-1"}, "-j -1: want 1 to 256"},
		{[]string{"optimal", min, "-o", o, "-j", "9223372036854775807"}, "-j 9223372036854775807: want 1 to 256"},
		{[]string{"optimal", min, "-o", o, "-j", "-1"}, "-j -1: want 1 to 256"},
		{[]string{"optimal", min, "-o", o, "--max-states", "0"}, "--max-states 0: want at least 1"},
		{[]string{"optimal", min, "-o", o, "--budget", "0s"}, "--budget 0s: want a positive duration"},
		{[]string{"minimize", min, "-o", o, "--budget", "0s"}, "--budget 0s: want a positive duration"},
		{[]string{"check", min, "-o", o, "--budget", "0s"}, "--budget must be positive"},
	} {
		code, out, errs := run(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		oneLineError(t, errs, tc.want)
	}
	assert.NoFileExists(t, o)
}

// failingWriter fails every write, as stdout on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// Item 5: a failed write on stdout is an error, not a silent exit 0.
func TestStdoutWriteErrorsExitNonZero(t *testing.T) {
	const min = "../examples/traces/raft-45.min.trace"
	for _, args := range [][]string{
		{"systems"},
		{"show", min},
		{"show", "--json", min},
		{"show", "--rounds", min},
		{"show", "--format", "mermaid", min},
		{"replay", min},
		{"--help"},
	} {
		var errb bytes.Buffer
		code := cli.Run(context.Background(), catalog(), args, failingWriter{}, &errb)
		assert.Equal(t, 2, code, "%v", args)
		oneLineError(t, errb.String(), "no space left on device")
	}
}

// Item 7: a trace an older demi wrote, whose panic fingerprint ended with
// the file and line, replays with its violation; one whose fingerprint
// cannot be migrated is never called fixed by check.
func TestOldPanicFingerprints(t *testing.T) {
	const min = "../examples/traces/raft-58a.min.trace"
	dir := t.TempDir()
	tr, _, err := record.ReadFile(min, catalog())
	require.NoError(t, err)
	fp := tr.Header.Violation.Fingerprint
	require.True(t, strings.HasPrefix(fp, "panic: ") && strings.HasSuffix(fp, " @ raft.assertf"), fp)
	legacy := func(name, fingerprint string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, rewriteHeader(t, min, func(h map[string]any) {
			h["violation"].(map[string]any)["fingerprint"] = fingerprint
		}), 0o644))
		return path
	}
	// The form of demi 637ed2c: "@ raft.assertf (assert.go:12)".
	old := legacy("old.trace", fp+" (assert.go:12)")
	code, out, errs := run(t, "replay", old)
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "1/1 replays reproduced "+fp+" after")
	code, out, errs = run(t, "check", old, "-o", filepath.Join(dir, "c.trace"))
	assert.Equal(t, 1, code, out+errs)
	assert.Contains(t, out, "exact replay reproduces "+fp)

	// A form it cannot migrate (the package named by its major version).
	odd := legacy("odd.trace", strings.TrimSuffix(fp, "raft.assertf")+"v3.assertf (assert.go:12)")
	code, out, errs = run(t, "check", odd, "-o", filepath.Join(dir, "d.trace"))
	assert.Equal(t, 2, code, out+errs)
	oneLineError(t, errs, "cannot tell whether the violation is fixed: the trace was written by an older demi")
	assert.NotContains(t, out, "no longer reachable")
}

// divergingTrace writes raft-45.min.trace with its last delivery's message
// ID changed, so that a replay leaves it there.
func divergingTrace(t *testing.T) string {
	t.Helper()
	tr, _, err := record.ReadFile("../examples/traces/raft-45.min.trace", catalog())
	require.NoError(t, err)
	for i := len(tr.Events) - 1; i >= 0; i-- {
		if tr.Events[i].Kind == record.Deliver && tr.Events[i].From != record.External {
			tr.Events[i].ID += 1000
			break
		}
	}
	path := filepath.Join(t.TempDir(), "div.trace")
	require.NoError(t, tr.WriteFile(path))
	return path
}

// Item 8: every command that replays a trace exits 1 when the trace
// diverges, as plain replay does; a signal during a scripted step-through
// waiting on stdin interrupts it.
func TestDivergingTraceExitsOneEverywhere(t *testing.T) {
	div := divergingTrace(t)
	for _, args := range [][]string{
		{"replay", div},
		{"replay", "--step", div},
		{"show", "--rounds", div},
		{"show", "--format", "markdown", div},
		{"show", "--format", "mermaid", div},
		{"show", "--format", "shiviz", div},
		{"report", div, "-o", filepath.Join(t.TempDir(), "r.html")},
	} {
		code, _, errs := runWith(t, context.Background(), catalog(), strings.NewReader("quit\n"), args...)
		assert.Equal(t, 1, code, "%v: %s", args, errs)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	}
}

func TestStepThroughInterruptedWhileReadingStdin(t *testing.T) {
	pr, pw := io.Pipe() // nothing is ever written: a pipe left open
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	code, _, errs := runWith(t, ctx, catalog(), pr, "replay", "--step", "../examples/traces/raft-45.min.trace")
	assert.Equal(t, cli.ExitInterrupted, code, errs)
}

// Item 9: several bad options in a header name the same one every time;
// the header's network is checked; two ways of printing are refused; a
// flag that takes one value refuses a second.
func TestSmallerGaps(t *testing.T) {
	dir := t.TempDir()
	const min = "../examples/traces/raft-45.min.trace"
	bad := filepath.Join(dir, "bad.trace")
	require.NoError(t, os.WriteFile(bad, rewriteHeader(t, min, func(h map[string]any) {
		for _, o := range h["options"].([]any) {
			m := o.(map[string]any)
			switch m["name"] {
			case "members":
				m["value"] = "0"
			case "client-weight":
				m["value"] = "-1"
			case "raft-45":
				m["value"] = "maybe"
			}
		}
	}), 0o644))
	for range 10 {
		code, _, errs := run(t, "show", bad)
		assert.Equal(t, 2, code)
		oneLineError(t, errs, "option client-weight=-1 is out of range")
	}
	network := filepath.Join(dir, "network.trace")
	require.NoError(t, os.WriteFile(network, rewriteHeader(t, min, func(h map[string]any) { h["network"] = "bogus" }), 0o644))
	code, _, errs := run(t, "show", network)
	assert.Equal(t, 2, code)
	oneLineError(t, errs, `bad trace header: network "bogus" (want fifo or unordered)`)

	o := filepath.Join(dir, "o.trace")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--json", "--format", "mermaid", min}, "--json and --format mermaid ask for two outputs; give one"},
		{[]string{"show", "--rounds", "--json", min}, "--json and --rounds ask for two outputs; give one"},
		{[]string{"minimize", min, "--budget", "1m", "--budget", "2m", "-o", o}, "--budget is given twice"},
		{[]string{"minimize", min, "-o", o, "-o", o + "2"}, "--output is given twice"},
		{[]string{"minimize", min, "-j", "1", "-j", "2", "-o", o}, "--jobs is given twice"},
		{[]string{"fuzz", "--system", "raft", "--seed", "1", "--seed", "2", "-o", o}, "--seed is given twice"},
	} {
		code, out, errs := run(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		oneLineError(t, errs, tc.want)
	}
	assert.NoFileExists(t, o)

	// optimal on etcdraft, whose members once could not be forked (it
	// refused; optimal.TestForks covers the refusal), searches and proves
	// the shipped trace optimal, writing nothing.
	code, out, _ := runShipped(t, "optimal", "../examples/traces/etcdraft-apply-before-commit.min.trace", "-o", o)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "the input is optimal over its external events")
	assert.NoFileExists(t, o)
}
