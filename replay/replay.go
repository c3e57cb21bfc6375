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
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/demi-project/demi/record"
)

// Divergence is the first point where a run left its trace.
type Divergence struct {
	Event    int    `json:"event"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

func (d *Divergence) String() string {
	return fmt.Sprintf("diverged at event %d: expected %s; got %s", d.Event, d.Expected, d.Got)
}

// Result is the outcome of one replay.
type Result struct {
	// Violation is the first violation whose fingerprint matches the
	// trace's, else the first violation seen, else nil.
	Violation *record.Violation
	// Reproduced reports whether the trace's violation was reproduced
	// (same fingerprint).
	Reproduced bool
	// Divergence is set when the run left the trace.
	Divergence *Divergence
	// Events is the number of trace events executed.
	Events int
	// Sim is the run, stopped where replay stopped (for inspection).
	Sim *record.Sim
}

// Run replays t on sys exactly.
func Run(ctx context.Context, sys *record.System, t *record.Trace) (*Result, error) {
	sim, err := record.NewSim(sys, t.Header.OptionMap(), t.Header.Seed)
	if err != nil {
		return nil, err
	}
	want := ""
	if t.Header.Violation != nil {
		want = t.Header.Violation.Fingerprint
	}
	sim.Reserve(len(t.Events))
	res := &Result{Sim: sim}
	for i, e := range t.Events {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if d := step(sim, i, e); d != nil {
			res.Divergence = d
			break
		}
		res.Events = i + 1
		if v := sim.Check(); v != nil {
			if v.Fingerprint == want {
				res.Violation, res.Reproduced = v, true
				break
			}
			if res.Violation == nil {
				res.Violation = v
			}
			if sim.Halted() != nil {
				res.Divergence = &Divergence{Event: i, Expected: "the run to go on", Got: v.String()}
				break
			}
		}
	}
	return res, nil
}

func step(sim *record.Sim, i int, e record.Event) *Divergence {
	if e.Kind.IsExternal() {
		if err := sim.Apply(e); err != nil {
			return &Divergence{Event: i, Expected: e.String(), Got: err.Error()}
		}
		if e.Kind == record.Send {
			got := sim.Events()[len(sim.Events())-1].ID
			if got != e.ID {
				return &Divergence{Event: i, Expected: e.String(), Got: fmt.Sprintf("message ID #%d", got)}
			}
		}
		return nil
	}
	p, ok := sim.Pending(e.ID)
	if !ok {
		return &Divergence{Event: i, Expected: e.String(), Got: fmt.Sprintf("no message #%d pending", e.ID)}
	}
	if p.From != e.From || p.To != e.To || p.Timer != e.Timer || !sameMessage(p.Msg, e.Msg) {
		got := record.Event{Kind: record.Deliver, ID: p.ID, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer}
		return &Divergence{Event: i, Expected: e.String(), Got: "pending " + got.String()}
	}
	if err := sim.Deliver(e.ID); err != nil {
		return &Divergence{Event: i, Expected: e.String(), Got: err.Error()}
	}
	return nil
}

// sameMessage compares two messages by type and content: deeply equal
// values are the same, and otherwise (a message read back from a file may
// differ from the one the run produced in ways the encoding does not keep,
// such as a nil versus an empty slice) their canonical encodings decide.
func sameMessage(a, b record.Message) bool {
	if record.TypeName(a) != record.TypeName(b) {
		return false
	}
	if reflect.DeepEqual(a, b) {
		return true
	}
	ea, err1 := record.EncodeMessage(a)
	eb, err2 := record.EncodeMessage(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
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
