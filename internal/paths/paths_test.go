package paths

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSame(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.trace")
	require.NoError(t, os.WriteFile(a, []byte("x"), 0o644))
	b := filepath.Join(dir, "b.trace")
	require.NoError(t, os.Link(a, b))
	c := filepath.Join(dir, "c.trace")
	require.NoError(t, os.WriteFile(c, []byte("x"), 0o644))

	for _, tc := range []struct {
		x, y string
		same bool
	}{
		{a, a, true},
		{a, filepath.Join(dir, ".", "a.trace"), true},
		{a, b, true},  // a hard link is the same file
		{a, c, false}, // same contents, another file
		{a, filepath.Join(dir, "missing.trace"), false},
	} {
		got, err := Same(tc.x, tc.y)
		require.NoError(t, err)
		assert.Equal(t, tc.same, got, "%s vs %s", tc.x, tc.y)
	}
}
