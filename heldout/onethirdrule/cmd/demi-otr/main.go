// Command demi-otr is demi with the held-out OneThirdRule system: every
// demi command (fuzz, replay, show, minimize, optimal, ...) on it.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"github.com/demi-project/demi/heldout/onethirdrule"
)

func main() { cli.Main(record.NewCatalog(onethirdrule.System())) }
