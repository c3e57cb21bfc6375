package docs_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockExampleIsThePageCode checks that the lock system
// docs/writing-a-system.md writes is the package examples/lock whose
// outputs the page shows: its first two Go blocks, one after the other,
// are examples/lock/lock.go.
func TestLockExampleIsThePageCode(t *testing.T) {
	code := goBlocks(t, "writing-a-system.md")
	require.GreaterOrEqual(t, len(code), 2, "the page writes the system in two Go blocks")
	src, err := os.ReadFile("../examples/lock/lock.go")
	require.NoError(t, err)
	assert.Equal(t, code[0]+"\n"+code[1], string(src), "edit docs/writing-a-system.md and examples/lock/lock.go together")
}

// goBlocks returns the Go blocks of a page, in order.
func goBlocks(t *testing.T, page string) []string {
	t.Helper()
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	bs, err := blocks(lines)
	require.NoError(t, err)
	var code []string
	for _, b := range bs {
		if strings.HasPrefix(lines[b.start-1], "```go") {
			code = append(code, b.text())
		}
	}
	return code
}

// TestMydemiBlockBuilds type-checks (go vet) the main package docs/writing-a-system.md
// shows (its third Go block, "Command mydemi"), with the lock system the
// page imports as example.com/lock taken from examples/lock. The file is
// laid over the module with go vet -overlay, so nothing is written into
// the checkout.
func TestMydemiBlockBuilds(t *testing.T) {
	code := goBlocks(t, "writing-a-system.md")
	require.GreaterOrEqual(t, len(code), 3)
	main := code[2]
	require.True(t, strings.HasPrefix(main, "// Command mydemi"), "the third Go block is the binary's main")
	require.Contains(t, main, `"example.com/lock"`)
	main = strings.Replace(main, `"example.com/lock"`, `"github.com/demi-project/demi/examples/lock"`, 1)

	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(src, []byte(main), 0o644))
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "docs", "testdata", "mydemi.go"): src}})
	require.NoError(t, err)
	ov := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ov, overlay, 0o644))

	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	vet := exec.Command(gobin, "vet", "-overlay", ov, "./docs/testdata")
	vet.Dir = root
	out, err := vet.CombinedOutput()
	assert.NoError(t, err, "the page's main does not compile:\n%s", out)
}
