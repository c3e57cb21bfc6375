package etcdraft33_test

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
)

var update = flag.Bool("update", false, "rewrite the blocks of docs/real-bugs.md this module's tests show")

const page = "../../../../docs/real-bugs.md"

// TestDocsRounds checks the round views docs/real-bugs.md shows: the
// output of demi show --rounds on the shipped reference and minimized
// traces, between "<!-- golden NAME" and "<!-- end golden -->" (-update
// rewrites them).
func TestDocsRounds(t *testing.T) {
	for name, trace := range map[string]string{
		"prevote-ref-rounds": referenceTrace,
		"prevote-min-rounds": minTrace,
	} {
		code, out, stderr := run(t, "show", "--rounds", trace)
		require.Equal(t, 0, code, stderr)
		realbugstest.DocsBlock(t, page, name, out, *update)
	}
}
