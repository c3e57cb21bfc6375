package etcdraft_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex/etcdraft"
)

var update = flag.Bool("update", false, "rewrite the blocks of docs/real-bugs.md this module's tests show")

const page = "../../../../docs/real-bugs.md"

// TestDocsRounds checks the round view docs/real-bugs.md shows: the
// output of demi show --rounds on the shipped reference trace, between
// "<!-- golden NAME" and "<!-- end golden -->" (-update rewrites it).
func TestDocsRounds(t *testing.T) {
	for name, trace := range map[string]string{
		"readindex-ref-rounds": referenceTrace,
		"readindex-min-rounds": "../traces/etcdraft-stale-read-index.min.trace",
	} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), record.NewCatalog(etcdraft.System()),
			[]string{"show", "--rounds", trace}, &out, &errb)
		require.Equal(t, 0, code, errb.String())
		block := regexp.MustCompile("(?s)(<!-- golden " + name + "[^\n]*-->\n```\n)(.*?)(```\n<!-- end golden -->)")
		raw, err := os.ReadFile(page)
		require.NoError(t, err)
		m := block.FindSubmatch(raw)
		require.NotNil(t, m, "%s has no golden block %s", page, name)
		if *update {
			raw = block.ReplaceAll(raw, append(append(append([]byte{}, m[1]...), bytes.ReplaceAll(out.Bytes(), []byte("$"), []byte("$$"))...), m[3]...))
			require.NoError(t, os.WriteFile(page, raw, 0o644))
			continue
		}
		require.Equal(t, out.String(), string(m[2]), "%s: block %s differs from demi show --rounds %s (go test -update)", page, name, trace)
	}
}
