// Command demi is demi's CLI with examples/etcdraft, the adapter of the
// main module, built against go.etcd.io/raft/v3 v3.7.0, the release that
// fixed the stale read index bug (docs/real-bugs.md); its read-retry option
// asks raft again for a read index as etcd's server does. Run it from this
// module's directory:
//
//	go run ./cmd/demi check ../readindex/traces/etcdraft-stale-read-index.min.trace
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
)

func main() {
	cli.Main(record.NewCatalog(etcdraft.WithReadRetry()))
}
