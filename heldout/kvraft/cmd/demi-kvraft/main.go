// Command demi-kvraft is demi with the held-out replicated key-value store
// built on etcd raft: every demi command (fuzz, replay, show, minimize,
// optimal, ...) on it.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/heldout/kvraft"
)

func main() { cli.Main(record.NewCatalog(kvraft.System())) }
