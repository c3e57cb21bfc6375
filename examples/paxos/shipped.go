package paxos

import (
	"github.com/demi-project/demi/record"
)

// FuzzCase is the fuzz search that produced a bug's shipped trace
// (examples/traces/paxos-<bug>.trace): `demi fuzz --system paxos --mode
// walk --bug <bug> --seed 1` (scripts/gen-traces.sh), or record.Search with
// Options and Config. It tries seeds 1, 2, … and keeps the first failing
// run; no seed is picked by hand. A test checks that the search gives the
// shipped file byte for byte; the evaluation's fresh-seed study tries the
// seeds after it.
type FuzzCase struct {
	Bug    string
	Config record.SearchConfig
}

// Options returns the run's options: the bug switch on, all else default.
func (c FuzzCase) Options() record.Options { return record.Options{c.Bug: "true"} }

// TraceName returns the base name of bug's shipped files in
// examples/traces (paxos-<bug>).
func TraceName(bug string) string { return "paxos-" + bug }

// ShippedFuzz returns the search of every bug's shipped trace, in the
// order of the system's bug switches: demi fuzz's defaults (3,000
// deliveries at most, 100 external events, timers at 0.05, the invariant
// checked after every delivery, the random walk) from seed 1, at most 100
// seeds.
func ShippedFuzz() []FuzzCase {
	var out []FuzzCase
	for _, bug := range System().Bugs() {
		out = append(out, FuzzCase{Bug: bug, Config: record.SearchConfig{
			FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 3000, MaxExternals: 100, TimerProb: 0.05, CheckEvery: 1},
			Runs:       100, Mode: record.Walk,
		}})
	}
	return out
}
