package step

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/demi-project/demi/record"
)

// Screen is everything one screen shows, as data: the terminal UI styles
// it, the scripted mode prints it as plain text (see Render).
type Screen struct {
	Title string
	Step  int
	Last  int // the last step of the execution
	Event record.Event
	// Contents is the message of a delivery or an external send, field by
	// field.
	Contents string
	// Round is the round and phase of the step ("" when the system does
	// not annotate rounds).
	Round string
	// Check is the invariant's verdict right after the step.
	Check *record.Violation
	// Violation is where the execution breaks the invariant (nil: never).
	Violation *record.Violation
	// Target is the violation of the trace walked through.
	Target *record.Violation
	// WhatIfs are the what-ifs that made the current execution, oldest
	// first.
	WhatIfs []string
	// Next is the message the schedule delivers at the next step (0: the
	// next step is not a delivery, or there is none).
	Next    record.MsgID
	Pending []Pending
	Actors  []ActorView
	// RoundView, Help: when set, shown instead of the pending messages and
	// the actors.
	RoundView []string
	Help      []string
	Status    string
}

// ActorView is one actor's state at the step and what the step changed.
type ActorView struct {
	State
	Before State
	// Changed names the fields whose value the step changed.
	Changed map[string]bool
	// Expanded: show every field unfolded.
	Expanded bool
}

// Screen returns the screen of the current step.
func (w *Walk) Screen(ctx context.Context) *Screen {
	s := w.Session()
	h := s.Header()
	p := w.point
	scr := &Screen{
		Title:     fmt.Sprintf("%s · %s%s · seed %d · %s network", filepath.Base(w.path), h.System, optionNote(w.sys, h.OptionMap()), h.Seed, h.Network),
		Step:      p.Step,
		Last:      s.Len() - 1,
		Event:     p.Event,
		Round:     w.roundsOf(ctx, p.Step),
		Check:     p.Check,
		Violation: h.Violation,
		Target:    w.target,
		Pending:   markDropped(p.Pending, w.outcomes, p.Step),
		Status:    w.status,
	}
	if p.Event.Msg != nil {
		scr.Contents = Contents(p.Event.Msg)
	}
	for i, o := range w.outcomes {
		scr.WhatIfs = append(scr.WhatIfs, fmt.Sprintf("%d. %s", i+1, o.String(w.target)))
	}
	if p.Step+1 < s.Len() {
		if e := s.Event(p.Step + 1); e.Kind == record.Deliver {
			scr.Next = e.ID
		}
	}
	for i, st := range p.After {
		scr.Actors = append(scr.Actors, ActorView{State: st, Before: p.Before[i],
			Changed: Changed(p.Before[i], st), Expanded: st.Actor == w.expanded})
	}
	switch {
	case w.help:
		scr.Help = Help()
	case w.rounds:
		scr.RoundView = w.roundView(ctx, p.Step)
	}
	return scr
}

// markDropped returns pending with the messages that a drop what-if made
// at or before step marked Dropped (a copy: points are never changed).
func markDropped(pending []Pending, outcomes []*Outcome, step int) []Pending {
	dropped := map[record.MsgID]bool{}
	for _, o := range outcomes {
		if o.Change.Drop != 0 && o.After <= step {
			dropped[o.Change.Drop] = true
		}
	}
	if len(dropped) == 0 {
		return pending
	}
	out := make([]Pending, len(pending))
	for i, p := range pending {
		p.Dropped = dropped[p.ID]
		out[i] = p
	}
	return out
}

// optionNote renders the options that differ from the system's defaults.
func optionNote(sys *record.System, o record.Options) string {
	if parts := sys.ChangedOptions(o); len(parts) > 0 {
		return " (" + strings.Join(parts, ", ") + ")"
	}
	return ""
}
