package spark

import (
	"maps"
	"slices"
	"strconv"

	"github.com/demi-project/demi/record"
)

// FuzzCase is the fuzz search that produced a bug's shipped trace
// (examples/traces/<bug>.trace): `demi fuzz --system spark` with Args, or
// record.Search with Options and Config. It tries seeds 1, 2, … and keeps
// the first run whose violation comes after at least 300 deliveries, as the
// DEMi evaluation did; no seed is picked by hand. scripts/gen-traces.sh
// reads this table (through examples/spark/internal/genref -fuzz-args),
// and a test checks that the search gives the shipped file byte for byte.
type FuzzCase struct {
	Bug    string
	Config record.SearchConfig
	// Opts are options other than the bug switch (name to value), nil for
	// none.
	Opts map[string]string
}

// Options returns the run's options: the bug switch on, Opts, all else
// default.
func (c FuzzCase) Options() record.Options {
	o := record.Options{c.Bug: "true"}
	maps.Copy(o, c.Opts)
	return o
}

// Args returns the demi fuzz flags of the search (without --system and -o).
func (c FuzzCase) Args() []string {
	f := c.Config
	args := []string{
		"--bug", c.Bug, "--seed", strconv.FormatUint(f.Seed, 10), "--runs", strconv.Itoa(f.Runs),
		"--max-steps", strconv.Itoa(f.MaxSteps), "--externals", strconv.Itoa(f.MaxExternals),
		"--timer-prob", strconv.FormatFloat(f.TimerProb, 'g', -1, 64),
		"--check-every", strconv.Itoa(f.CheckEvery),
		"--min-deliveries", strconv.Itoa(f.MinDeliveries),
	}
	if f.ExternalProb > 0 {
		args = append(args, "--external-prob", strconv.FormatFloat(f.ExternalProb, 'g', -1, 64))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Opts)) {
		args = append(args, "--opt", k+"="+c.Opts[k])
	}
	return args
}

// ShippedFuzz returns the search of every bug's shipped trace, in the
// order of BugNames: seeds from 1 (at most 100), 3,000 deliveries at most,
// the invariant checked after every delivery, the first violation after at
// least 300 deliveries, the default options, and as many random external
// events as the paper's initial traces had (30 for spark-2294, 20 for the
// others). spark-3150 also crash-restarts the master and the driver
// (weights 5 and 10 against 10 for joins and for submissions), with
// external events six times as dense as by default (--external-prob
// 0.06), so that a master crash can fall between the two steps of an
// application's removal.
func ShippedFuzz() []FuzzCase {
	c := func(bug string, externals int, prob float64, opts map[string]string) FuzzCase {
		return FuzzCase{Bug: bug, Opts: opts, Config: record.SearchConfig{
			FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 3000, MaxExternals: externals, ExternalProb: prob,
				TimerProb: 0.05, CheckEvery: 1},
			Runs: 100, MinDeliveries: 300,
		}}
	}
	return []FuzzCase{
		c(Bug2294, 30, 0, nil),
		c(Bug3150, 20, 0.06, map[string]string{OptMasterRestartWeight: "5", OptDriverRestartWeight: "10"}),
		c(Bug9256, 20, 0, nil),
	}
}
