package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/demi-project/demi/record"
	"github.com/spf13/pflag"
)

// Bounds of the rounds mode's flags.
const (
	maxIsolations  = 64
	maxPeriod      = 1000
	maxFaultRounds = 100_000
)

// modeFlags configures the mode fuzz looked up in cfg.Mode from its own
// flags: the rounds mode's --isolations, --period and --fault-rounds, and
// the coverage mode's report. It returns the coverage report (nil unless
// the mode is coverage).
func modeFlags(f *pflag.FlagSet, cfg *record.SearchConfig, sys *record.System, rm record.RoundsMode) (*coverageReport, error) {
	roundsFlags := []string{"isolations", "period", "fault-rounds"}
	switch cfg.Mode.Name() {
	case record.Rounds.Name():
		switch {
		case rm.Isolations < 1 || rm.Isolations > maxIsolations:
			return nil, badInput(fmt.Errorf("--isolations %d: want 1 to %d", rm.Isolations, maxIsolations))
		case rm.Period < 1 || rm.Period > maxPeriod:
			return nil, badInput(fmt.Errorf("--period %d: want 1 to %d", rm.Period, maxPeriod))
		case rm.Rounds < 1 || rm.Rounds > maxFaultRounds:
			return nil, badInput(fmt.Errorf("--fault-rounds %d: want 1 to %d", rm.Rounds, maxFaultRounds))
		case !record.HasRounds(sys):
			return nil, badInput(fmt.Errorf("--mode rounds: system %s: %w", sys.Name, record.ErrNoRounds))
		}
		cfg.Mode = rm
		return nil, nil
	case record.Coverage.Name():
		cov := &coverageReport{}
		cfg.Mode = record.CoverageMode{Report: cov.add}
		return cov, checkNoFlags(f, "coverage", roundsFlags)
	}
	return nil, checkNoFlags(f, cfg.Mode.Name(), roundsFlags)
}

// checkNoFlags refuses the rounds mode's flags with another mode.
func checkNoFlags(f *pflag.FlagSet, mode string, names []string) error {
	for _, n := range names {
		if f.Changed(n) {
			return badInput(fmt.Errorf("--%s is a flag of --mode rounds, not of --mode %s", n, mode))
		}
	}
	return nil
}

// coverageReport collects the abstract states a coverage search covered
// after each run.
type coverageReport struct {
	points []record.CoveragePoint
}

func (c *coverageReport) add(p record.CoveragePoint) { c.points = append(c.points, p) }

// runs is the --runs of the command that regenerates a trace found after
// n runs: n for a coverage search (its runs depend on the runs before),
// 0 (a single run from its seed) otherwise.
func (c *coverageReport) runs(n int) int {
	if c == nil {
		return 0
	}
	return n
}

// print writes the abstract states covered after 1, 2, 4, 8, ... runs and
// after the last, on one line, when the search was a coverage search.
func (c *coverageReport) print(w io.Writer) {
	if c == nil || len(c.points) == 0 {
		return
	}
	var parts []string
	for i, p := range c.points {
		if i+1 == len(c.points) || (p.Runs&(p.Runs-1)) == 0 {
			parts = append(parts, fmt.Sprintf("%d after %d", p.States, p.Runs))
		}
	}
	fmt.Fprintf(w, "abstract states covered: %s run(s)\n", strings.Join(parts, ", "))
}
