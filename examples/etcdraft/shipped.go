package etcdraft

import (
	"maps"
	"slices"
	"strconv"

	"github.com/demi-project/demi/record"
)

// FuzzCase is the fuzz search that produced a bug's shipped trace
// (examples/traces/etcdraft-<bug>.trace): `demi fuzz --system etcdraft`
// with Args, or record.Search with Options and Config. It tries seeds
// Seed, Seed+1, … and keeps the first run whose violation comes after at
// least MinDeliveries deliveries; no seed is picked by hand.
// scripts/gen-traces.sh reads this table (through
// examples/etcdraft/internal/genref -fuzz-args), and a test checks that the
// search gives the shipped file byte for byte.
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
		"--bug", c.Bug, "--mode", "walk", "--seed", strconv.FormatUint(f.Seed, 10), "--runs", strconv.Itoa(c.Config.Runs),
		"--max-steps", strconv.Itoa(f.MaxSteps), "--externals", strconv.Itoa(f.MaxExternals),
		"--timer-prob", strconv.FormatFloat(f.TimerProb, 'g', -1, 64),
		"--check-every", strconv.Itoa(f.CheckEvery),
		"--min-deliveries", strconv.Itoa(c.Config.MinDeliveries),
	}
	if f.Violation != "" {
		args = append(args, "--violation", f.Violation)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Opts)) {
		args = append(args, "--opt", k+"="+c.Opts[k])
	}
	return args
}

// TraceName is the base name of a bug's shipped traces.
func TraceName(bug string) string { return "etcdraft-" + bug }

// ShippedFuzz returns the search of every bug's shipped trace, in the order
// of BugNames. All use demi fuzz's defaults (3 members, crash-restarts and
// partitions at the system's default weights, snapshots every 5 applied
// entries, 3,000 deliveries at most, 100 externals, invariant checked after
// every delivery) from seed 1, keeping the first violation after at least
// 1,000 deliveries. apply-before-commit runs without snapshots: with them,
// its member compacts its log beyond what raft has applied and the library
// panics within the first hundred deliveries of every run; skip-snapshot-
// persist runs with a snapshot after every applied write, so that
// snapshots are frequent; leader-local-read runs with clients reading as
// often as they write (read-weight 10, like client-weight), as reads are
// off by default (docs/examples.md).
func ShippedFuzz() []FuzzCase {
	c := func(bug string, opts map[string]string) FuzzCase {
		return FuzzCase{Bug: bug, Opts: opts, Config: record.SearchConfig{
			FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 3000, MaxExternals: 100, TimerProb: 0.05, CheckEvery: 1},
			Runs:       100, MinDeliveries: 1000,
		}}
	}
	// send-before-persist's first consequence in a fuzz run is most often a
	// follower that lost entries it acknowledged (a library panic); the
	// issue's story is the double vote, so its search keeps only
	// ElectionSafety violations, and runs without client writes, where
	// elections are a larger share of what happens.
	sbp := c(BugSendBeforePersist, map[string]string{OptClientWeight: "0"})
	sbp.Config.Violation = ElectionSafety
	return []FuzzCase{
		sbp,
		c(BugApplyBeforeCommit, map[string]string{OptSnapshotEvery: "0"}),
		c(BugSkipSnapshotPersist, map[string]string{OptSnapshotEvery: "1"}),
		c(BugHardStateFirst, nil),
		c(BugLeaderLocalRead, map[string]string{OptReadWeight: "10"}),
	}
}
