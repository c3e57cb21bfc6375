package docs_test

import (
	"os"
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
	raw, err := os.ReadFile("writing-a-system.md")
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
	require.GreaterOrEqual(t, len(code), 2, "the page writes the system in two Go blocks")
	src, err := os.ReadFile("../examples/lock/lock.go")
	require.NoError(t, err)
	assert.Equal(t, code[0]+"\n"+code[1], string(src), "edit docs/writing-a-system.md and examples/lock/lock.go together")
}
