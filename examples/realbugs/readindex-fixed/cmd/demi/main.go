// Command demi is demi's CLI with the etcdraft system of
// examples/realbugs/readindex built against go.etcd.io/raft/v3 v3.7.0, the
// release that fixed the stale read index bug (docs/real-bugs.md). Run it
// from this module's directory:
//
//	go run ./cmd/demi check ../readindex/traces/etcdraft-stale-read-index.min.trace
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex-fixed/etcdraft"
)

func main() {
	cli.Main(record.NewCatalog(etcdraft.System()))
}
