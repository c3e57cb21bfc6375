package report

import (
	"context"
	"fmt"
	"strings"

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
	// Actors are the system's members in its order, then record.External
	// when the trace injects messages from outside.
	Actors []record.ActorID
	// Steps has one entry per event of the trace.
	Steps []Step
	// Layout is the trace laid out in rounds (package rounds).
	Layout *rounds.Layout
	// Lost counts the messages sent and never delivered (timers excluded).
	Lost int
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
	n := 0 // steps taken
	// The trace is followed exactly; the invariant is checked once, at the
	// end (the story only tells what each step did).
	d, err := record.NewDriver(t.Setup(sys), t.Events, record.Follow{
		CheckEvery: record.CheckAtEnd,
		Observe: func(sim *record.Sim, o *record.Outcome) bool {
			i := o.Step
			e := t.Events[i]
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
