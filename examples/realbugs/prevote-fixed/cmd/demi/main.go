// Command demi is demi's CLI with the etcdraft33 system built against
// github.com/coreos/etcd/raft v3.3.15, the release that fixed the PreVote
// and CheckQuorum liveness bug (docs/real-bugs.md). Run it from this
// module's directory:
//
//	go run ./cmd/demi check ../prevote/traces/etcdraft33-prevote.min.trace
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/examples/realbugs/prevote/etcdraft33"
)

func main() {
	cli.Main(record.NewCatalog(etcdraft33.System()))
}
