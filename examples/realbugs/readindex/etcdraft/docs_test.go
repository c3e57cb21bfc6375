package etcdraft_test

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/realbugs/internal/realbugstest"
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
		realbugstest.DocsBlock(t, page, name, out.String(), *update)
	}
}

// TestLibraryRelease checks that this module builds the affected release,
// v3.6.0, from the module proxy (go list -m: no replace directive).
func TestLibraryRelease(t *testing.T) {
	require.Equal(t, "v3.6.0", realbugstest.Release(t, "go.etcd.io/raft/v3"))
}
