package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const shippedMin = "../examples/traces/raft-45.min.trace"

func TestShowFormats(t *testing.T) {
	code, md, errs := run(t, "show", "--format", "markdown", shippedMin)
	require.Equal(t, 0, code, errs)
	want, err := os.ReadFile("../report/testdata/raft-45.md")
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(string(want), "Trace `raft-45.min.trace`", "Trace `"+shippedMin+"`"), md,
		"the report package's golden file, with the path as the user gave it in the summary and the file's name (as attached) in the commands")

	code, diagram, _ := run(t, "show", "--format", "mermaid", shippedMin)
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(diagram, "sequenceDiagram\n    participant a0 as raft-1\n"), diagram)
	assert.Contains(t, md, "```mermaid\n"+diagram+"```\n")

	code, log, _ := run(t, "show", "--format", "shiviz", shippedMin)
	require.Equal(t, 0, code)
	want, err = os.ReadFile("../report/testdata/raft-45.shiviz")
	require.NoError(t, err)
	assert.Equal(t, string(want), log)

	code, js, _ := run(t, "show", "--format", "json", shippedMin)
	require.Equal(t, 0, code)
	_, js2, _ := run(t, "show", "--json", shippedMin)
	assert.Equal(t, js2, js)
}

func TestShowFormatBadInput(t *testing.T) {
	code, out, errs := run(t, "show", "--format", "pdf", shippedMin)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "demi: unknown --format \"pdf\" (want text, json, markdown, mermaid or shiviz)\n", errs)

	bad := filepath.Join(t.TempDir(), "bad.trace")
	require.NoError(t, os.WriteFile(bad, []byte("not a trace"), 0o644))
	code, out, _ = run(t, "show", "--format", "markdown", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
}
