// Package examples names the example systems that ship with demi, as the
// demi command knows them: Catalog is the catalog of cmd/demi (and of
// cmd/demi-eval and the tests of the pages in docs/), so that they cannot
// drift apart. Each system lives in its own package below this one.
package examples

import (
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
)

// Catalog returns the shipped example systems, in the order demi systems
// lists them.
func Catalog() *record.Catalog {
	return record.NewCatalog(
		etcdraft.System(),
		paxos.System(),
		raft.System(),
		raft.HardSystem(),
		spark.System(),
		tokenring.System(),
	)
}
