package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Item 6: a result that cannot be written where asked (its directory
// gone, a disk full) is kept next to the input, and the error says where.
func TestOutputKeptWhenItsPathFails(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trace")
	require.NoError(t, os.WriteFile(in, []byte("input"), 0o644))
	gone := filepath.Join(dir, "gone")
	require.NoError(t, os.Mkdir(gone, 0o755))
	o := planOutput("-o", filepath.Join(gone, "r.min.trace"), in)
	require.NoError(t, os.Remove(gone)) // the disk "fills up" during the work

	where, err := o.write([]byte("result"))
	require.Error(t, err)
	assert.Equal(t, filepath.Join(dir, "r.min.kept.trace"), where)
	assert.Contains(t, err.Error(), "no such file or directory; the result is kept in "+where)
	got, rerr := os.ReadFile(where)
	require.NoError(t, rerr)
	assert.Equal(t, "result", string(got))
	assert.Equal(t, ExitBadInput, err.(*ExitError).Code)
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	assert.Empty(t, left, "no temporary file left")
}

// Item 9: two runs writing the same -o: the second to finish does not
// replace what the first wrote meanwhile; its result is kept beside it.
func TestOutputWrittenMeanwhileIsNotReplaced(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trace")
	path := filepath.Join(dir, "out.trace")

	// Absent when planned, written by another run before the end.
	a := planOutput("-o", path, in)
	require.NoError(t, os.WriteFile(path, []byte("first run"), 0o644))
	where, err := a.write([]byte("second run"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "appeared during the run (another demi writing it?); not replaced; the result is kept in "+where)
	assert.Equal(t, filepath.Join(dir, "out.kept.trace"), where)

	// Present when planned (an -o to replace), rewritten meanwhile.
	b := planOutput("-o", path, in)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.WriteFile(path, []byte("third run, longer"), 0o644))
	where, err = b.write([]byte("fourth run"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "changed during the run")
	assert.Equal(t, filepath.Join(dir, "out.kept-2.trace"), where)
	got, _ := os.ReadFile(path)
	assert.Equal(t, "third run, longer", string(got), "the other run's result stays")

	// Unchanged since planned: replaced, atomically.
	c := planOutput("-o", path, in)
	where, err = c.write([]byte("fifth run"))
	require.NoError(t, err)
	assert.Equal(t, path, where)
	got, _ = os.ReadFile(path)
	assert.Equal(t, "fifth run", string(got))
}
