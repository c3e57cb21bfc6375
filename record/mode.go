package record

import (
	"context"
	"fmt"
	"strings"
)

// A Mode is a fuzzing strategy: how a search (Search, `demi fuzz --mode`)
// makes each run. Search walks the seeds of a campaign and asks the mode's
// Campaign for one run per seed; what a run does with its seed is the
// mode's business, but the same seed must give the same run, byte for byte.
//
// Each mode lives in a file of its own: Walk (fuzz.go, the random walk
// with fixed weights), Swarm (swarm.go, a walk with a mix of faults and
// workload drawn per run), Rounds (fuzzrounds.go, lossy synchronous rounds
// with isolated processes) and Coverage (fuzzcoverage.go, a corpus of
// schedules mutated toward new abstract states). Modes lists the modes
// demi knows.
type Mode interface {
	// Name is the mode's name on the command line and in trace headers.
	Name() string
	// Campaign prepares a search of sys with the given options and
	// configuration (one per Search; a mode may keep state across the
	// runs of a campaign, such as a corpus).
	Campaign(sys *System, opts Options, cfg SearchConfig) (Campaign, error)
}

// A Campaign makes the runs of one search, one seed at a time.
type Campaign interface {
	// Run makes the run of seed. prev, when not nil, is the previous run
	// of the campaign, discarded: a run may reuse its memory (its event
	// log) and must not use anything else of it.
	Run(ctx context.Context, seed uint64, prev *Sim) (RunResult, error)
}

// RunResult is one run of a campaign.
type RunResult struct {
	// Sim is the finished run; its options are those the actors ran with.
	Sim *Sim
	// Violation is the invariant violation the run ended in, or nil.
	Violation *Violation
	// Config is the run's effective configuration (its defaults filled
	// in), for the trace's note.
	Config FuzzConfig
	// Params are the parameters the mode drew for this run, recorded in
	// the trace header (Header.Fuzz), in the order drawn.
	Params []Option
}

// FuzzInfo says how a fuzz mode made a trace: the header's Fuzz field.
// Traces of the walk mode (and every trace older than modes) have none:
// their header is what it always was.
type FuzzInfo struct {
	// Mode is the mode's name (Mode.Name).
	Mode string `msgpack:"mode" json:"mode"`
	// Params are the parameters the mode drew for the run, from its seed.
	Params []Option `msgpack:"params,omitempty" json:"params,omitempty"`
}

// String renders the info as "mode name=value ...".
func (fi *FuzzInfo) String() string {
	parts := []string{fi.Mode}
	for _, p := range fi.Params {
		parts = append(parts, p.Name+"="+p.Value)
	}
	return strings.Join(parts, " ")
}

// Modes returns the fuzz modes demi knows, the default first.
func Modes() []Mode {
	return []Mode{Swarm, Walk, Rounds, Coverage}
}

// LookupMode finds a mode of Modes by name.
func LookupMode(name string) (Mode, error) {
	var names []string
	for _, m := range Modes() {
		if m.Name() == name {
			return m, nil
		}
		names = append(names, m.Name())
	}
	return nil, fmt.Errorf("unknown fuzz mode %q (known: %s)", name, strings.Join(names, ", "))
}
