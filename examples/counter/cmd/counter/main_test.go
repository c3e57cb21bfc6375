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

// page is the documentation page this module follows.
const page = "../../../../docs/your-own-module.md"

// pageCommands returns the command lines of the page's sh blocks, in
// order, comments cut.
func pageCommands(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	var out []string
	in := false
	for _, l := range strings.Split(string(raw), "\n") {
		switch {
		case l == "```sh":
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in:
			if c, _, ok := strings.Cut(l, " #"); ok {
				l = c
			}
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestThePageAsWritten does what docs/your-own-module.md says, as a new
// user would: a new module in a directory beside a checkout of demi
// (../demi), the page's go mod commands, the system's code (this module's
// files), the page's go build line and every ./counter command, in order.
// Then it checks that every command the binary prints names it (counter,
// not demi) and the file as written, and works when run as printed.
func TestThePageAsWritten(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, os.Symlink(root, filepath.Join(work, "demi")))
	dir := filepath.Join(work, "counter")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd", "counter"), 0o755))
	for _, f := range []string{"counter.go", "cmd/counter/main.go"} {
		b, err := os.ReadFile(filepath.Join("../..", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	gobin := t.TempDir()
	sh := func(line string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOBIN="+gobin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "%s: %s", line, stderr.String())
		return stdout.String()
	}
	cmds := pageCommands(t)
	require.Contains(t, cmds, "go build -o counter ./cmd/counter")
	outputs := map[string]string{}
	for _, c := range cmds {
		if strings.HasPrefix(c, "go get github.com/demi-project/demi@latest") {
			continue // demi is not on the module proxy yet, as the page says
		}
		outputs[c] = sh(c)
	}

	// The regenerate line of fuzz names this binary and writes the same
	// trace again.
	var fuzzOut string
	for c, out := range outputs {
		if strings.HasPrefix(c, "./counter fuzz ") {
			fuzzOut = out
		}
	}
	m := regexp.MustCompile(`(?m)^regenerate with: (counter fuzz .*)$`).FindStringSubmatch(fuzzOut)
	require.NotNil(t, m, fuzzOut)
	require.NoError(t, os.Rename(filepath.Join(dir, "c.trace"), filepath.Join(dir, "first.trace")))
	sh("./" + m[1])
	first, err := os.ReadFile(filepath.Join(dir, "first.trace"))
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(dir, "c.trace"))
	require.NoError(t, err)
	assert.Equal(t, first, again, "the regenerate line writes the same trace")

	// The bug report's commands: the install line, then replay and step
	// with this binary on the file as attached.
	md := sh("./counter show --format markdown c.min.trace")
	_, cmdsBlock, ok := strings.Cut(md, "```sh\n")
	require.True(t, ok, md)
	cmdsBlock, _, _ = strings.Cut(cmdsBlock, "```")
	lines := strings.Split(strings.TrimSpace(cmdsBlock), "\n")
	require.Len(t, lines, 3, md)
	assert.Equal(t, "go install ./cmd/counter   # in a checkout of example.com/counter", lines[0])
	assert.Equal(t, "counter replay c.min.trace", lines[1])
	assert.Equal(t, "counter replay --step c.min.trace", lines[2])
	sh("go install ./cmd/counter") // as the first line says (GOBIN: a temporary directory)
	assert.Contains(t, sh("./"+lines[1]), "c.min.trace: 1/1 replays reproduced backup-ahead")
	page, err := os.ReadFile(filepath.Join(dir, "c.min.html"))
	require.NoError(t, err, "./counter report c.min.trace writes c.min.html")
	assert.Contains(t, string(page), "counter replay --step c.min.trace")
}
