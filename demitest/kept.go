package demitest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/record"
)

// KeptOutcome is what became of a kept trace.
type KeptOutcome uint8

// The outcomes of a kept trace.
const (
	// Reproduces: it replays exactly and reaches its violation (the test
	// fails).
	Reproduces KeptOutcome = iota
	// StillReachable: its exact replay diverges, but a schedule near it
	// reaches the violation; that schedule replaced the trace (the test
	// fails).
	StillReachable
	// Fixed: no schedule within the budget reaches the violation (the
	// test passes).
	Fixed
	// Broken: the trace could not be read or checked (the test fails).
	Broken
)

func (o KeptOutcome) String() string {
	switch o {
	case Reproduces:
		return "reproduces"
	case StillReachable:
		return "still reachable"
	case Fixed:
		return "fixed"
	case Broken:
		return "broken"
	}
	return fmt.Sprintf("KeptOutcome(%d)", o)
}

// Kept is the outcome of checking one kept trace.
type Kept struct {
	Path    string
	Outcome KeptOutcome
	// Pruned reports that the fixed trace was deleted (-demi.prune).
	Pruned bool
	// Schedules is the number of schedules the re-check ran.
	Schedules int
}

// checkKept checks one kept trace under the test's options.
func checkKept(ctx context.Context, t testing.TB, sys *record.System, opts record.Options, c config, path string) Kept {
	t.Helper()
	k := Kept{Path: path, Outcome: Broken}
	tr, tsys, err := record.ReadFile(path, record.NewCatalog(sys))
	if err != nil {
		t.Errorf("demi: kept trace %v", err)
		return k
	}
	schedules := min(max(c.checkEvents/max(len(tr.Events), 1), 10), check.DefaultMaxSchedules)
	r, err := check.Run(ctx, tsys, tr, check.Config{Options: opts, MaxSchedules: schedules, Fingerprint: c.fingerprint})
	if err != nil {
		t.Errorf("demi: checking kept trace %s: %v", path, err)
		return k
	}
	k.Schedules = r.Schedules
	v := r.Violation
	switch r.Outcome {
	case check.Reproduced:
		k.Outcome = Reproduces
		text, rounded := view(ctx, sys, path)
		t.Errorf("demi: kept trace %s still reproduces its violation exactly\nviolation %s\n  %s\n\n%s\n%s",
			path, v.Fingerprint, v.Detail, text, commands(c, path, rounded, "", ""))
	case check.Reachable:
		k.Outcome = StillReachable
		if err := r.Trace.WriteFile(path); err != nil {
			t.Errorf("demi: kept trace %s: its violation %s is still reachable, and saving the new schedule failed: %v", path, v.Fingerprint, err)
			return k
		}
		text, rounded := view(ctx, sys, path)
		t.Errorf("demi: kept trace %s no longer replays exactly (%s),\nbut a schedule near it still reaches its violation %s (found in %d schedules);\nthe trace now holds that schedule (%d deliveries, %d externals)\n\n%s\n%s",
			path, replayProblem(r), v.Fingerprint, r.Schedules, r.Trace.Header.Deliveries, r.Trace.Header.Externals, text, commands(c, path, rounded, "", ""))
	case check.Unreachable:
		k.Outcome = Fixed
		why := replayProblem(r)
		note := "delete it, or run with -demi.prune"
		if c.prune {
			if err := os.Remove(path); err != nil {
				t.Errorf("demi: pruning %s: %v", path, err)
				return k
			}
			k.Pruned, note = true, "deleted (-demi.prune)"
		}
		searched := fmt.Sprintf("none of the %d schedules tried near it reaches it", r.Schedules)
		if r.Exhausted {
			searched = fmt.Sprintf("none of the %d schedules within reach reaches it", r.Schedules)
		}
		t.Logf("demi: kept trace %s: fixed: %s is no longer reachable (%s; %s); %s",
			path, v.Fingerprint, why, searched, note)
	}
	return k
}

// replayProblem says why exact replay did not reproduce the violation.
func replayProblem(r *check.Result) string {
	if d := r.Replay.Divergence; d != nil {
		return d.String()
	}
	if r.Replay.Violation != nil {
		return "exact replay ends in another violation, " + r.Replay.Violation.Fingerprint
	}
	return "exact replay ends without the violation"
}
