package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheCommandsItPrintsWork builds this module's binary and uses it as a
// new user would: fuzz, minimize, show a bug report, write the HTML
// report; every command the binary prints names it (counter, not demi)
// and the file as written, and works when run as printed.
func TestTheCommandsItPrintsWork(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "counter"), args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "counter %s: %s", strings.Join(args, " "), stderr.String())
		return stdout.String()
	}
	// runPrinted runs a command line as printed: "counter ARGS...".
	runPrinted := func(line string) string {
		t.Helper()
		f := strings.Fields(line)
		require.Equal(t, "counter", f[0], line)
		return run(f[1:]...)
	}

	out1 := run("fuzz", "--system", "counter", "--bug", "forget-count", "--runs", "50", "-o", "c.trace")
	m := regexp.MustCompile(`(?m)^regenerate with: (.*)$`).FindStringSubmatch(out1)
	require.NotNil(t, m, out1)
	require.NoError(t, os.Rename(filepath.Join(dir, "c.trace"), filepath.Join(dir, "first.trace")))
	runPrinted(m[1])
	first, err := os.ReadFile(filepath.Join(dir, "first.trace"))
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(dir, "c.trace"))
	require.NoError(t, err)
	assert.Equal(t, first, again, "the regenerate line writes the same trace")

	run("minimize", "c.trace", "-o", "c.min.trace")
	md := run("show", "--format", "markdown", "c.min.trace")
	cmds := between(t, md, "```sh\n", "```\n")
	lines := strings.Split(strings.TrimSpace(cmds), "\n")
	require.Len(t, lines, 3, md)
	assert.Equal(t, "go install ./cmd/counter   # in a checkout of example.com/counter", lines[0])
	assert.Equal(t, "counter replay c.min.trace", lines[1])
	assert.Equal(t, "counter replay --step c.min.trace", lines[2])
	assert.Contains(t, runPrinted(lines[1]), "c.min.trace: 1/1 replays reproduced backup-ahead")

	html := run("report", "c.min.trace", "-o", "c.html")
	assert.Contains(t, html, "wrote c.html")
	page, err := os.ReadFile(filepath.Join(dir, "c.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "counter replay --step c.min.trace")
}

func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, after, ok := strings.Cut(s, start)
	require.True(t, ok, s)
	in, _, ok := strings.Cut(after, end)
	require.True(t, ok, s)
	return in
}
