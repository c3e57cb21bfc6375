// Command demi is demi's CLI with the etcdraft system built against
// go.etcd.io/raft/v3 v3.6.0, the release with the stale read index bug
// (docs/real-bugs.md). Run it from this module's directory:
//
//	go run ./cmd/demi fuzz --system etcdraft ...
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/readindex/etcdraft"
)

func main() {
	cli.Main(record.NewCatalog(etcdraft.System()))
}
