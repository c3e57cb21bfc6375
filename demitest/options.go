package demitest

import (
	"maps"
	"time"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// config is what Check runs with: the defaults, changed by the Options,
// then by the flags given on the command line.
type config struct {
	opts           record.Options
	fuzz           record.FuzzConfig
	seed           uint64
	runs           int
	budget         time.Duration
	minimize       bool
	minimizeBudget time.Duration
	checkEvents    int
	dir            string
	command        string
	fingerprint    fingerprint.Func
	trace          string
	prune          bool
}

func defaults() config {
	return config{
		opts:           record.Options{},
		seed:           1,
		runs:           100,
		budget:         20 * time.Second,
		minimize:       true,
		minimizeBudget: 30 * time.Second,
		checkEvents:    200_000,
	}
}

// An Option changes how Check runs.
type Option func(*config)

// Options sets system options (merged into those set before).
func Options(o record.Options) Option {
	return func(c *config) { maps.Copy(c.opts, o) }
}

// Bugs turns bug switches on.
func Bugs(names ...string) Option {
	return func(c *config) {
		for _, n := range names {
			c.opts[n] = "true"
		}
	}
}

// Fuzz sets how each fuzzing run goes (steps, externals, timer chance; see
// record.FuzzConfig). Its Seed is ignored: seeds come from Seed and
// -demi.seed.
func Fuzz(f record.FuzzConfig) Option { return func(c *config) { c.fuzz = f } }

// Seed sets the first fuzzing seed (default 1; -demi.seed overrides it).
func Seed(s uint64) Option { return func(c *config) { c.seed = s } }

// Runs sets the number of fuzzing runs (default 100; -demi.runs overrides
// it). Runs(0) only checks the kept traces.
func Runs(n int) Option { return func(c *config) { c.runs = n } }

// Budget bounds the wall-clock time of the fuzzing (default 20s;
// -demi.budget overrides it).
func Budget(d time.Duration) Option { return func(c *config) { c.budget = d } }

// MinimizeBudget bounds the wall-clock time of minimizing a failing trace
// (default 30s).
func MinimizeBudget(d time.Duration) Option { return func(c *config) { c.minimizeBudget = d } }

// NoMinimize keeps a failing trace without minimizing it (as
// -demi.minimize=false).
func NoMinimize() Option { return func(c *config) { c.minimize = false } }

// CheckBudget bounds the work of re-checking one kept trace whose exact
// replay diverges, in events executed (default 200,000): a trace of n
// events gets about events/n schedules, at least 10 and at most
// check.DefaultMaxSchedules.
func CheckBudget(events int) Option { return func(c *config) { c.checkEvents = events } }

// Dir sets the directory of the kept traces (default
// testdata/demi/<TestName>).
func Dir(path string) Option { return func(c *config) { c.dir = path } }

// Command names the demi binary in the commands of a failure message, as
// run from the module root, e.g. "go run ./cmd/mydemi" for a main that
// calls cli.Main with a catalog holding your system.
func Command(cmd string) Option { return func(c *config) { c.command = cmd } }

// Fingerprint sets a user message fingerprint for minimization and
// re-checks (see package fingerprint).
func Fingerprint(f fingerprint.Func) Option { return func(c *config) { c.fingerprint = f } }

// Prune deletes kept traces whose violation is no longer reachable (as
// -demi.prune).
func Prune() Option { return func(c *config) { c.prune = true } }

// Trace checks only the trace at path, and does not fuzz (as -demi.trace).
func Trace(path string) Option { return func(c *config) { c.trace = path } }
