package record_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFileNewNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.trace")
	require.NoError(t, record.WriteFileNew(path, []byte("first")))
	err := record.WriteFileNew(path, []byte("second"))
	require.ErrorIs(t, err, fs.ErrExist)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "first", string(got))

	require.NoError(t, record.WriteFileAtomic(path, []byte("third")))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "third", string(got))

	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

func TestChangedOptions(t *testing.T) {
	sys := &record.System{Options: []record.OptionSpec{
		{Name: "size", Default: "3"},
		{Name: "bug-a", Default: "false", Bug: true},
		{Name: "bug-b", Default: "false", Bug: true},
	}}
	assert.Empty(t, sys.ChangedOptions(record.Options{"size": "3", "bug-a": "false"}))
	assert.Equal(t, []string{"size=5", "bug-b"},
		sys.ChangedOptions(record.Options{"bug-b": "true", "size": "5", "bug-a": "false"}))
}
