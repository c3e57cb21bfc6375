package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/demi-project/demi/internal/step"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// Story is a trace replayed once, with what the replay learned: the
// messages each step sent, which of them were never delivered, and the
// round and phase of each delivery.
type Story struct {
	// Name is the trace file as the user named it; the reproduce commands
	// name its base name, the file as attached to a report.
	Name string
	// Program is the command that runs the reproduce commands (default
	// "demi"): the binary that wrote the report, which knows its system.
	Program string
	// Install is the command line that installs Program ("" if unknown).
	Install string
	Trace   *record.Trace
	System  *record.System
	// Actors are the system's members the trace involves, in its order
	// (one that never starts and receives nothing is left out), then
	// record.External when the trace injects messages from outside.
	Actors []record.ActorID
	// Steps has one entry per event of the trace.
	Steps []Step
	// Layout is the trace laid out in rounds (package rounds).
	Layout *rounds.Layout
	// Lost counts the messages sent and never delivered (timers excluded).
	Lost int
	// AtViolation says, actor by actor, what the step at which the
	// invariant breaks changed ("raft-2: role candidate→leader; votes
	// 2→3"); empty without a violation.
	AtViolation []string
}

// Step is one event of the trace with what the replay learned about it.
type Step struct {
	Index int
	Event record.Event
	// Rounded is set for a delivered message that carries a round
	// (record.Rounded); Round and Phase are then its round and phase.
	Rounded bool
	Round   int
	Phase   string
	// Late is set when the receiver had already moved to a later round,
	// ReceiverRound (the asynchronous residue of package rounds).
	Late          bool
	ReceiverRound int
	// Lost lists the messages this step sent that were never delivered.
	Lost []record.Pending
}

// Build replays t on sys and returns its story. name is how the user
// named the trace file.
func Build(ctx context.Context, name string, sys *record.System, t *record.Trace) (*Story, error) {
	lay, err := rounds.Build(ctx, sys, t)
	if err != nil {
		return nil, fmt.Errorf("lay out rounds: %w", err)
	}
	s := &Story{Name: name, Trace: t, System: sys, Layout: lay, Steps: make([]Step, len(t.Events))}
	sent := map[record.MsgID]record.Pending{}
	delivered := map[record.MsgID]bool{}
	var order []record.MsgID
	var last record.MsgID
	external := false
	n := 0    // steps taken
	vAt := -1 // the step at which the invariant breaks, and the states before it
	if v := t.Header.Violation; v != nil {
		vAt = v.Event
	}
	var before []step.State
	// The trace is followed exactly; the invariant is checked once, at the
	// end (the story only tells what each step did).
	d, err := record.NewDriver(t.Setup(sys), t.Events, record.Follow{
		CheckEvery: record.CheckAtEnd,
		Observe: func(sim *record.Sim, o *record.Outcome) bool {
			i := o.Step
			e := t.Events[i]
			switch {
			case i == vAt-1:
				before = captureAll(sim)
			case i == vAt:
				s.AtViolation = changes(before, captureAll(sim))
			}
			s.Steps[i] = Step{Index: i, Event: e}
			n = i + 1
			if !e.Kind.IsExternal() {
				delivered[o.Delivered.ID] = true
			}
			if e.Kind == record.Send {
				external = true
			}
			// Message IDs are assigned in send order: the new ones are what
			// this step sent.
			seen := last
			for _, p := range sim.InFlight() {
				if p.ID > seen {
					sent[p.ID] = p
					order = append(order, p.ID)
					last = max(last, p.ID)
				}
			}
			// A handler panicked: the run ends here.
			return sim.Halted() == nil
		},
	})
	if err != nil {
		return nil, err
	}
	s.Actors = append(s.Actors, d.Sim().Members()...)
	if err := d.Run(ctx); err != nil {
		return nil, err
	}
	if div := d.Divergence(); div != nil {
		return nil, fmt.Errorf("trace does not replay: %w", div)
	}
	s.Steps = s.Steps[:n]
	for _, id := range order {
		p := sent[id]
		if delivered[id] || p.Timer != "" || p.Cause < 0 || p.Cause >= len(s.Steps) {
			continue
		}
		s.Steps[p.Cause].Lost = append(s.Steps[p.Cause].Lost, p)
		s.Lost++
	}
	s.Actors = s.involved()
	if external {
		s.Actors = append(s.Actors, record.External)
	}
	for _, r := range lay.Rounds {
		for _, ph := range r.Phases {
			for _, d := range ph.Deliveries {
				s.mark(d)
			}
		}
	}
	for _, d := range lay.Residue {
		s.mark(d)
	}
	return s, nil
}

// captureAll renders every actor's state.
func captureAll(sim *record.Sim) []step.State {
	v := sim.View()
	out := make([]step.State, len(sim.Members()))
	for i, id := range sim.Members() {
		out[i] = step.Capture(id, v.Actor(id))
	}
	return out
}

// changes says what changed from before (nil: every actor not running) to
// after, one line per actor that changed.
func changes(before, after []step.State) []string {
	var out []string
	for i, a := range after {
		var b step.State
		if i < len(before) {
			b = before[i]
		}
		switch {
		case a.Running && !b.Running:
			out = append(out, fmt.Sprintf("%s: started", a.Actor))
			continue
		case !a.Running && b.Running:
			out = append(out, fmt.Sprintf("%s: stopped", a.Actor))
			continue
		}
		ch := step.Changed(b, a)
		var parts []string
		for _, f := range a.Fields {
			if ch[f.Name] {
				was := "∅"
				if g, ok := b.Field(f.Name); ok {
					was = g.Short
				}
				parts = append(parts, fmt.Sprintf("%s %s→%s", f.Name, was, f.Short))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("%s: %s", a.Actor, strings.Join(parts, "; ")))
		}
	}
	return out
}

// involved returns the members the trace involves, in the system's order:
// those it starts, crashes or kills, and those that send or receive a
// message (delivered or not). A member that never starts and that nothing
// is sent to is left out of the pictures.
func (s *Story) involved() []record.ActorID {
	used := map[record.ActorID]bool{}
	for _, st := range s.Steps {
		e := st.Event
		used[e.Actor], used[e.From], used[e.To] = true, true, true
		for _, p := range st.Lost {
			used[p.From], used[p.To] = true, true
		}
	}
	var out []record.ActorID
	for _, a := range s.Actors {
		if used[a] {
			out = append(out, a)
		}
	}
	return out
}

func (s *Story) mark(d rounds.Delivery) {
	if d.Step < 0 || d.Step >= len(s.Steps) {
		return
	}
	st := &s.Steps[d.Step]
	st.Rounded, st.Round, st.Phase, st.Late, st.ReceiverRound = true, d.Round, d.Phase, d.Late, d.ReceiverRound
}

// Violation returns the trace's violation, or nil.
func (s *Story) Violation() *record.Violation { return s.Trace.Header.Violation }

// Title names the system and the options that differ from its defaults:
// "raft (raft-45)".
func (s *Story) Title() string {
	h := s.Trace.Header
	parts := s.System.ChangedOptions(h.OptionMap())
	if len(parts) == 0 {
		return h.System
	}
	return h.System + " (" + strings.Join(parts, ", ") + ")"
}

// Describe splits an event into the columns of the event table: kind,
// from, to and message.
func Describe(ev record.Event) (kind, from, to, msg string) {
	switch ev.Kind {
	case record.Deliver:
		kind = "deliver"
		if ev.Timer != "" {
			kind = "timer"
		}
		return kind, string(ev.From), string(ev.To), record.FormatMessage(ev.Msg)
	case record.Send:
		return "send", string(record.External), string(ev.To), record.FormatMessage(ev.Msg)
	case record.Start, record.Kill, record.Restart:
		return ev.Kind.String(), "", string(ev.Actor), ""
	case record.Partition, record.Heal:
		return ev.Kind.String(), joinIDs(ev.A), joinIDs(ev.B), ""
	case record.WaitCondition:
		return ev.Kind.String(), "", "", ev.Cond
	}
	return ev.Kind.String(), "", "", ""
}

func joinIDs(a []record.ActorID) string {
	s := make([]string, len(a))
	for i, id := range a {
		s[i] = string(id)
	}
	return strings.Join(s, ",")
}
