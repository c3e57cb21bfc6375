// Command demi-2pc is demi with the held-out two-phase commit system:
// every demi command (fuzz, replay, show, minimize, optimal, ...) on it.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/heldout/twophase"
)

func main() { cli.Main(record.NewCatalog(twophase.System())) }
