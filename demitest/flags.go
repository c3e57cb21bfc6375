package demitest

import (
	"flag"
	"time"
)

// flagValues are the -demi.* flags of `go test`.
type flagValues struct {
	seed     uint64
	runs     int
	budget   time.Duration
	minimize bool
	trace    string
	prune    bool
}

// commandLine holds the flags registered on flag.CommandLine. It is
// written only by init and the flag package's parsing, before any test
// runs, as every testing flag is.
var commandLine = registerFlags(flag.CommandLine)

func registerFlags(fs *flag.FlagSet) *flagValues {
	f := &flagValues{}
	d := defaults()
	fs.Uint64Var(&f.seed, "demi.seed", d.seed, "demi: first fuzzing seed")
	fs.IntVar(&f.runs, "demi.runs", d.runs, "demi: number of fuzzing runs")
	fs.DurationVar(&f.budget, "demi.budget", d.budget, "demi: wall-clock budget of the fuzzing")
	fs.BoolVar(&f.minimize, "demi.minimize", d.minimize, "demi: minimize a failing trace")
	fs.StringVar(&f.trace, "demi.trace", "", "demi: check only this trace file, do not fuzz")
	fs.BoolVar(&f.prune, "demi.prune", false, "demi: delete kept traces whose violation is no longer reachable")
	return f
}

// override applies the flags set on fs's command line to c.
func (f *flagValues) override(fs *flag.FlagSet, c *config) {
	if !fs.Parsed() {
		return
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "demi.seed":
			c.seed = f.seed
		case "demi.runs":
			c.runs = f.runs
		case "demi.budget":
			c.budget = f.budget
		case "demi.minimize":
			c.minimize = f.minimize
		case "demi.trace":
			c.trace = f.trace
		case "demi.prune":
			c.prune = f.prune
		}
	})
}
