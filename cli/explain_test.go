package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExplain(t *testing.T) {
	code, out, errs := run(t, "explain", shippedMin)
	require.Equal(t, 0, code, errs)
	want, err := os.ReadFile("../explain/testdata/raft-45.explain")
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(string(want), "raft-45.min.trace", shippedMin, 1), out,
		"the explain package's golden file, with the path as given")

	code, _, errs = run(t, "explain", "../examples/traces/raft-45.trace")
	assert.Equal(t, 2, code)
	assert.Regexp(t, `^demi: \.\./examples/traces/raft-45\.trace: the trace has \d+ events; explain runs it once per event and takes at most 1000 \(minimize it first\)\n$`, errs)

	code, _, errs = run(t, "explain", "no-such.trace")
	assert.Equal(t, 2, code)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
}
