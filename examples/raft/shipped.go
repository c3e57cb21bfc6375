package raft

import (
	"maps"
	"slices"
	"strconv"

	"github.com/demi-project/demi/record"
)

// FuzzCase is the fuzz run that produced a bug's shipped trace
// (examples/traces/<bug>.trace): `demi fuzz --system raft` with Args, or
// record.Search with Options and Config. scripts/gen-traces.sh reads this
// table (through examples/raft/internal/genref -fuzz-args), and a test
// checks that running it gives the shipped file byte for byte.
type FuzzCase struct {
	Bug    string
	Config record.SearchConfig
	// Opts are options other than the bug switch (name to value, as
	// `demi fuzz --opt name=value`), such as a fuzzing weight; nil for none.
	Opts map[string]string
}

// Options returns the run's options: the bug switch on, Opts, all else
// default.
func (c FuzzCase) Options() record.Options {
	o := record.Options{c.Bug: "true"}
	maps.Copy(o, c.Opts)
	return o
}

// Args returns the demi fuzz flags of the run (without --system and -o).
func (c FuzzCase) Args() []string {
	f := c.Config
	args := []string{
		"--bug", c.Bug, "--mode", "walk", "--seed", strconv.FormatUint(f.Seed, 10), "--runs", "1",
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

// with returns c with the option name set to value (in Opts).
func (c FuzzCase) with(name, value string) FuzzCase {
	o := maps.Clone(c.Opts)
	if o == nil {
		o = map[string]string{}
	}
	o[name] = value
	c.Opts = o
	return c
}

// ShippedFuzz returns the fuzz run of every bug's shipped trace, in the
// order of BugNames. All use the DEMi setup (4 members, 3,000 deliveries at
// most, invariant checked after every delivery, first violation after at
// least 300 deliveries) and inject client commands; raft-58a also injects
// crash-restarts. docs/examples.md explains the per-bug changes.
func ShippedFuzz() []FuzzCase {
	c := func(bug string, seed uint64, externals int, externalProb float64) FuzzCase {
		return FuzzCase{Bug: bug, Config: record.SearchConfig{
			FuzzConfig: record.FuzzConfig{
				Seed: seed, MaxSteps: 3000, MaxExternals: externals, ExternalProb: externalProb,
				TimerProb: 0.05, CheckEvery: 1,
			},
			Runs: 1, MinDeliveries: 300,
		}}
	}
	return []FuzzCase{
		c(Bug45, 45, 100, 0),
		c(Bug46, 7, 100, 0),
		c(Bug56, 13, 100, 0.2),
		c(Bug58a, 941, 200, 0.1).with("restart-weight", "1"),
		c(Bug58b, 1, 100, 0.2),
		c(Bug42, 2, 100, 0),
		c(Bug66, 27, 100, 0),
	}
}
