// Command demi records, replays and minimizes failing executions of the
// example systems that ship with demi. See the README.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
)

func main() {
	cli.Main(record.NewCatalog(
		etcdraft.System(),
		raft.System(),
		tokenring.System(),
	))
}
