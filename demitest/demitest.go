package demitest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/demi-project/demi/record"
)

// Result says what Check did, for tests that look further than pass/fail.
type Result struct {
	// Kept lists the outcome for each kept trace checked, in order.
	Kept []Kept
	// Runs is the number of fuzzing runs executed.
	Runs int
	// Seed is the seed of the run that found a violation (when Failing is
	// set).
	Seed uint64
	// Violation is the violation found by fuzzing, or nil.
	Violation *record.Violation
	// Failing and Minimized are the files written for it ("" if none).
	Failing, Minimized string
}

// Check fuzzes sys inside the test t, after checking the traces kept from
// earlier failures; see the package documentation. It fails t (with
// t.Errorf, so the test goes on) when a kept trace still reaches its
// violation or fuzzing finds one.
func Check(t testing.TB, sys *record.System, options ...Option) *Result {
	t.Helper()
	c := defaults()
	for _, o := range options {
		o(&c)
	}
	commandLine.override(flag.CommandLine, &c)
	if c.dir == "" {
		c.dir = filepath.Join("testdata", "demi", testDir(t.Name()))
	}
	if c.command == "" {
		c.command = defaultCommand()
	}
	opts, err := sys.Resolve(c.opts)
	if err != nil {
		t.Errorf("demi: %v", err)
		return &Result{}
	}
	ctx := context.Background()
	res := &Result{}

	paths, err := keptTraces(c)
	if err != nil {
		t.Errorf("demi: %v", err)
		return res
	}
	failed := false
	for _, p := range paths {
		k := checkKept(ctx, t, sys, opts, c, p)
		res.Kept = append(res.Kept, k)
		failed = failed || k.Outcome != Fixed
	}
	if failed || c.trace != "" {
		return res
	}
	fuzzAndReport(ctx, t, sys, opts, c, res)
	return res
}

// keptTraces lists the traces to check first: -demi.trace alone, or every
// *.trace of the directory, minimized ones first, by name.
func keptTraces(c config) ([]string, error) {
	if c.trace != "" {
		if _, err := os.Stat(c.trace); err != nil {
			return nil, fmt.Errorf("-demi.trace: %w", err)
		}
		return []string{c.trace}, nil
	}
	paths, err := filepath.Glob(filepath.Join(c.dir, "*.trace"))
	if err != nil {
		return nil, err
	}
	sort.SliceStable(paths, func(i, j int) bool {
		mi, mj := strings.HasSuffix(paths[i], ".min.trace"), strings.HasSuffix(paths[j], ".min.trace")
		if mi != mj {
			return mi
		}
		return paths[i] < paths[j]
	})
	return paths, nil
}

// fuzzAndReport fuzzes; on a violation it keeps, minimizes and reports.
func fuzzAndReport(ctx context.Context, t testing.TB, sys *record.System, opts record.Options, c config, res *Result) {
	t.Helper()
	if c.runs <= 0 {
		return
	}
	start := time.Now()
	fctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()
	fc := c.fuzz
	fc.Seed = c.seed
	found, runs, err := record.Search(fctx, sys, opts, record.SearchConfig{FuzzConfig: fc, Runs: c.runs})
	res.Runs = runs
	stopped := ""
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		found, stopped = nil, fmt.Sprintf(", stopped by the %s budget", c.budget)
	case err != nil:
		t.Errorf("demi: fuzzing from seed %d: %v", c.seed, err)
		return
	}
	if found != nil {
		res.Seed = c.seed + uint64(runs) - 1
	}
	if found == nil {
		t.Logf("demi: %s: no violation in %d fuzzing runs from seed %d (%.1fs%s)", sys.Name, res.Runs, c.seed, time.Since(start).Seconds(), stopped)
		return
	}
	res.Violation = found.Header.Violation
	keep(ctx, t, sys, c, found, res)
}

// testDir turns a test name into a directory path: subtests nest, and
// characters other than letters, digits, '_', '-' and '.' become '_'.
func testDir(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		p = unsafeChars.ReplaceAllString(p, "_")
		if p == "" || p == "." || p == ".." {
			p = "_" + p
		}
		parts[i] = p
	}
	return filepath.Join(parts...)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.\-]`)
