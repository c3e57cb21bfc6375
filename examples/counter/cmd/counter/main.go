// Command counter is demi with the counter system: every demi command
// (fuzz, replay, show, minimize, explain, report, ...) on a system of this
// module. The commands it prints name it, counter, not demi.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/record"

	"example.com/counter"
)

func main() { cli.Main(record.NewCatalog(counter.System())) }
