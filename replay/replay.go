// Package replay re-executes a recorded trace exactly and says whether it
// reproduces the recorded violation.
//
// Replay is strict: every event of the trace is applied in order, each
// delivery must find the very message the trace recorded (same ID, sender,
// receiver and payload) pending and deliverable, and the invariant is checked
// after every event. When the run leaves the trace, replay reports the first
// divergence: the event index, what the trace expected and what happened.
// Because the runtime (package record) owns every source of nondeterminism,
// a divergence means a bug in the system under test (a goroutine, the clock,
// map iteration order) or a trace from a different build of it.
package replay

import (
	"context"

	"github.com/demi-project/demi/record"
)

// Divergence is the first point where a run left its trace (see
// record.Divergence: the event, what the trace expected, what the run had,
// and the fields that differ).
type Divergence = record.Divergence

// Result is the outcome of one replay.
type Result struct {
	// Violation is the first violation whose fingerprint matches the
	// trace's, else the first violation seen, else nil.
	Violation *record.Violation
	// Reproduced reports whether the trace's violation was reproduced
	// (record.Violation.Same).
	Reproduced bool
	// Divergence is set when the run left the trace.
	Divergence *Divergence
	// Events is the number of trace events executed.
	Events int
	// Sim is the run, stopped where replay stopped (for inspection).
	Sim *record.Sim
}

// Why says what a run that did not reproduce its trace's violation got
// instead: where it diverged, the violation it met, or none.
func (r *Result) Why() string {
	switch {
	case r.Divergence != nil:
		return r.Divergence.String()
	case r.Violation != nil:
		return "got " + record.Escape(r.Violation.Fingerprint)
	}
	return "no violation"
}

// Run replays t on sys exactly: it follows t's events with a record.Driver
// (exact matching, the invariant checked after every event) and stops at
// the trace's violation, at the first divergence, or when a handler
// panics. A delivery of an unignorable message (record.Unignorable) that
// is missing is waited for (record.Follow.Wait): replay delivers other
// messages until it comes, and reports a divergence that says so when it
// never does.
func Run(ctx context.Context, sys *record.System, t *record.Trace) (*Result, error) {
	d, err := record.NewDriver(t.Setup(sys), t.Events, record.Follow{Want: t.Header.Violation, Wait: true})
	if err != nil {
		return nil, err
	}
	if err := d.Run(ctx); err != nil {
		return nil, err
	}
	return &Result{Violation: d.Violation(), Reproduced: d.Found(), Divergence: d.Divergence(),
		Events: d.Pos(), Sim: d.Sim()}, nil
}

// Repeat replays t n times and returns every result (without their Sims),
// so that nondeterminism in a system shows up: a run that diverges, or ends
// in another violation, where the others reproduce. It stops early only if
// ctx is done.
func Repeat(ctx context.Context, sys *record.System, t *record.Trace, n int) ([]*Result, error) {
	var out []*Result
	for i := 0; i < n; i++ {
		r, err := Run(ctx, sys, t)
		if err != nil {
			return out, err
		}
		r.Sim = nil
		out = append(out, r)
	}
	return out, nil
}
