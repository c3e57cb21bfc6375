package etcdraft33_test

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
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
		block := regexp.MustCompile("(?s)(<!-- golden " + name + "[^\n]*-->\n```\n)(.*?)(```\n<!-- end golden -->)")
		raw, err := os.ReadFile(page)
		require.NoError(t, err)
		m := block.FindSubmatch(raw)
		require.NotNil(t, m, "%s has no golden block %s", page, name)
		if *update {
			raw = block.ReplaceAll(raw, append(append(append([]byte{}, m[1]...), bytes.ReplaceAll([]byte(out), []byte("$"), []byte("$$"))...), m[3]...))
			require.NoError(t, os.WriteFile(page, raw, 0o644))
			continue
		}
		require.Equal(t, out, string(m[2]), "%s: block %s differs from demi show --rounds %s (go test -update)", page, name, trace)
	}
}
