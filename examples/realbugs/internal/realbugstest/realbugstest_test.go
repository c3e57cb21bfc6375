package realbugstest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
)

func TestRelease(t *testing.T) {
	// The main module pins go.etcd.io/raft/v3 for examples/etcdraft.
	assert.Equal(t, "v3.7.0", realbugstest.Release(t, "go.etcd.io/raft/v3"))
}

func TestDocsBlock(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	require.NoError(t, os.WriteFile(page, []byte("a\n<!-- golden x: how -->\n```\nold\n```\n<!-- end golden -->\nb\n"), 0o644))
	realbugstest.DocsBlock(t, page, "x", "new $1\n", true)
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Equal(t, "a\n<!-- golden x: how -->\n```\nnew $1\n```\n<!-- end golden -->\nb\n", string(raw))
	realbugstest.DocsBlock(t, page, "x", "new $1\n", false)
}
