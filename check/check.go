// Package check asks of a saved failing trace the question that follows a
// code change: is its violation still reachable?
//
// Exact replay (package replay) answers it only while the code is
// unchanged: after a fix, or any change that alters what a handler sends,
// the run leaves the recorded schedule at the first changed message and
// replay reports a divergence, which says nothing about the bug. Run
// re-checks the trace the way minimization checks a candidate (package
// dpor): the same external events, injected in order; each recorded
// delivery matched to a pending message by sender, receiver and message
// type (the same contents preferred); and, when that does not reach the
// violation, type-fingerprint backtracks (other messages of the same type
// to the same receiver delivered instead), then backtracks on messages of
// other types, within a budget of schedules. One schedule goes first: the
// same loose matching, plus every message of a type the trace never
// delivered (one the changed code sends and the recorded run did not)
// delivered as soon as it can be; without it, a receiver waiting for such a
// message starves, and a long trace loses its violation to a change that
// did not fix the bug. The search stops at
// the first schedule that reaches a violation with the trace's fingerprint
// (record.Violation.Same); that schedule's own run is returned as a new
// exact, replayable trace.
//
// Outcomes:
//
//   - Reproduced: the trace replays exactly and reproduces its violation.
//   - Reachable: exact replay does not reproduce it, but a schedule within
//     the budget does; Result.Trace is that schedule.
//   - Unreachable: no schedule within the budget reaches it; under the
//     current code (and options) the bug is gone from this trace's
//     neighbourhood. It is evidence, not proof: a schedule farther from the
//     recorded one may still reach it.
//
// Config.Options changes the trace's options (a bug switch turned off, for
// example), so the same question can be asked of a configuration change.
package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// DefaultMaxSchedules is the schedule budget when Config.MaxSchedules is 0.
const DefaultMaxSchedules = 2000

// Outcome is the answer of a check.
type Outcome uint8

// The outcomes.
const (
	// Reproduced: exact replay reproduces the violation.
	Reproduced Outcome = iota
	// Reachable: exact replay does not, a schedule near it does.
	Reachable
	// Unreachable: no schedule within the budget reaches the violation.
	Unreachable
)

func (o Outcome) String() string {
	switch o {
	case Reproduced:
		return "reproduced"
	case Reachable:
		return "reachable"
	case Unreachable:
		return "unreachable"
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Config controls a check.
type Config struct {
	// Options override the trace's header options (nil: as recorded).
	Options record.Options
	// MaxSchedules bounds the schedules explored after exact replay fails
	// (0 = DefaultMaxSchedules). The answer depends on it, not on time.
	MaxSchedules int
	// Fingerprint is an optional user message fingerprint (see package
	// fingerprint), the same one minimization used.
	Fingerprint fingerprint.Func
}

// Result is the outcome of Run.
type Result struct {
	Outcome Outcome
	// Violation is the violation the trace records (its fingerprint is
	// the one looked for).
	Violation *record.Violation
	// Replay is the exact replay (without its Sim): its Divergence says
	// where the run left the trace, its Violation what it hit instead.
	Replay *replay.Result
	// Trace reaches the violation: the exact replay's run when Reproduced,
	// the schedule found when Reachable, nil when Unreachable. Its header
	// carries the options it ran with.
	Trace *record.Trace
	// Schedules is the number of schedules executed after exact replay.
	Schedules int
	// Exhausted reports that the search ran out of schedules to try before
	// the budget (only when Unreachable): every schedule the search orders
	// within reach was tried.
	Exhausted bool
}

// ErrNoViolation is returned for a trace that records no violation.
var ErrNoViolation = errors.New("check: the trace records no violation")

// Run checks whether t's violation is still reachable by sys, under t's
// options changed by cfg.Options. If ctx ends during the search, Run
// returns what it found so far (Unreachable within the schedules it ran)
// together with ctx's error; if it ends before, only the error.
func Run(ctx context.Context, sys *record.System, t *record.Trace, cfg Config) (*Result, error) {
	if t == nil || t.Header.Violation == nil || t.Header.Violation.Fingerprint == "" {
		return nil, ErrNoViolation
	}
	if cfg.MaxSchedules <= 0 {
		cfg.MaxSchedules = DefaultMaxSchedules
	}
	run, err := t.WithOptions(sys, cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	want := t.Header.Violation
	res := &Result{Violation: want}

	rep, err := replay.Run(ctx, sys, run)
	if err != nil {
		return nil, fmt.Errorf("check: replaying the trace: %w", err)
	}
	sim := rep.Sim
	rep.Sim = nil
	res.Replay = rep
	if rep.Reproduced && want.Same(rep.Violation) {
		res.Outcome = Reproduced
		res.Trace = ownTrace(sim.Trace(rep.Violation), t.Header.Note)
		return res, nil
	}

	// First the one schedule that also delivers messages of types the
	// trace never delivered (see eager), then the dpor search.
	res.Schedules = 1
	if tr, err := eager(ctx, sys, run, want); err != nil && ctx.Err() != nil {
		res.Outcome = Unreachable
		return res, ctx.Err()
	} else if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	} else if tr != nil {
		res.Outcome = Reachable
		res.Trace = ownTrace(tr, recheckedNote(t))
		return res, nil
	}

	c, err := dpor.New(dpor.Config{System: sys, Options: run.Header.OptionMap(), Seed: run.Header.Seed,
		Target: want.Fingerprint, Mode: dpor.TFB, Fingerprint: cfg.Fingerprint})
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	plan := dpor.FromEvents(c.Fingerprinter(), run.Events)
	for i := range plan {
		plan[i].Wildcard = plan[i].Event.Kind == record.Deliver
	}
	// First the backtracks on messages of the same type (a changed
	// message is most likely still of its type), then, with what is left
	// of the budget, on messages of any type.
	// The schedules the first pass leaves unused go to the second.
	for _, pass := range []struct {
		broad bool
		n     int
	}{{false, min(max(cfg.MaxSchedules/4, 1), cfg.MaxSchedules-res.Schedules)}, {true, 0}} {
		if pass.broad {
			pass.n = cfg.MaxSchedules - res.Schedules
		}
		if pass.n <= 0 {
			continue
		}
		c.SetBroad(pass.broad)
		c.SetMaxSchedules(pass.n)
		r, err := c.Check(ctx, plan)
		res.Schedules += r.Schedules
		if err != nil && ctx.Err() != nil {
			res.Outcome = Unreachable
			return res, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		if r.Trace != nil && want.Same(r.Trace.Header.Violation) {
			res.Outcome = Reachable
			res.Trace = ownTrace(r.Trace, recheckedNote(t))
			return res, nil
		}
		res.Exhausted = r.Schedules < pass.n
	}
	res.Outcome = Unreachable
	return res, nil
}

// ownTrace gives tr its own copy of the events and the note.
func ownTrace(tr *record.Trace, note string) *record.Trace {
	out := &record.Trace{Header: tr.Header, Events: append([]record.Event(nil), tr.Events...)}
	out.Recount()
	out.Header.Note = note
	return out
}

func recheckedNote(from *record.Trace) string {
	return fmt.Sprintf("re-checked by demi from a trace of %d deliveries and %d externals",
		from.Header.Deliveries, from.Header.Externals)
}
