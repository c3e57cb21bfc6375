// Command demi records, replays and minimizes failing executions of the
// example systems that ship with demi (examples.Catalog). See the README.
package main

import (
	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
)

func main() {
	cli.Main(examples.Catalog())
}
