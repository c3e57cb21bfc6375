package rounds

import (
	"fmt"
	"io"
	"strings"

	"github.com/demi-project/demi/record"
)

// Write prints the layout for a person: the prelude, then each round with
// its phases (senders, the message, each receiver's HO set), the other
// events of the round, the isolated actors and the state changes, then the
// asynchronous residue, the violation, and the totals (see Totals).
func (l *Layout) Write(w io.Writer) error {
	p := &printer{w: w}
	if !l.Rounded {
		p.line("no message in this trace carries a round (record.Rounded); use demi show for the event list")
	}
	if len(l.Prelude) > 0 {
		p.line("prelude")
		p.steps(l.Prelude)
	}
	for _, r := range l.Rounds {
		p.line("")
		p.line("round %d", r.Number)
		for _, ph := range r.Phases {
			p.line("  %-10s %s → %s", ph.Name, list(ph.Senders()), messageSummary(ph))
			ho := ph.HO()
			var parts []string
			for _, d := range ph.Deliveries {
				if senders, ok := ho[d.To]; ok {
					parts = append(parts, fmt.Sprintf("%s←%s", d.To, heard(ph, d.To, senders)))
					delete(ho, d.To)
				}
			}
			iso := ""
			if len(ph.Isolated) > 0 {
				iso = "  isolated: " + list(ph.Isolated)
			}
			p.line("  %-10s HO: %s%s", "", strings.Join(parts, "  "), iso)
		}
		if len(r.Other) > 0 {
			p.line("  also:")
			p.steps(r.Other)
		}
		if len(r.Isolated) > 0 {
			p.line("  isolated: %s", list(r.Isolated))
		}
		if len(r.Changes) > 0 {
			p.line("  state:")
			var actor record.ActorID
			var parts []string
			flush := func() {
				if len(parts) > 0 {
					p.line("    %s: %s", actor, strings.Join(parts, "; "))
				}
				parts = nil
			}
			for _, c := range r.Changes {
				if c.Actor != actor {
					flush()
					actor = c.Actor
				}
				parts = append(parts, fmt.Sprintf("%s %s→%s", c.Field, short(c.Before), short(c.After)))
			}
			flush()
		}
	}
	if len(l.Residue) > 0 {
		p.line("")
		p.line("asynchronous residue (delivered after the receiver moved on)")
		for _, d := range l.Residue {
			p.line("  step %d: %s→%s %s (round %d) reached %s in round %d", d.Step, d.From, d.To,
				record.FormatMessage(d.Msg), d.Round, d.To, d.ReceiverRound)
		}
	}
	if v := l.Violation; v != nil {
		p.line("")
		p.line("violation: %s", v.Fingerprint)
		p.line("  %s", v.Detail)
	}
	if l.Rounded {
		p.line("")
		l.Totals().write(p)
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) steps(steps []Step) {
	for _, s := range steps {
		p.line("    %4d  %s", s.Index, s.Event)
	}
}

// messageSummary shows the phase's message if all deliveries carry the same
// one, else its type and the count.
func messageSummary(ph *Phase) string {
	first := record.FormatMessage(ph.Deliveries[0].Msg)
	for _, d := range ph.Deliveries[1:] {
		if record.FormatMessage(d.Msg) != first {
			return fmt.Sprintf("%d × %s", len(ph.Deliveries), strings.TrimPrefix(record.TypeName(d.Msg), "*"))
		}
	}
	return first
}

// heard renders a receiver's HO set, marking senders heard more than once
// in the phase (a duplicate is often the bug: raft-45 counts it as a vote).
func heard(ph *Phase, to record.ActorID, senders []record.ActorID) string {
	s := make([]string, len(senders))
	for i, from := range senders {
		n := 0
		for _, d := range ph.Deliveries {
			if d.To == to && d.From == from {
				n++
			}
		}
		s[i] = string(from)
		if n > 1 {
			s[i] += fmt.Sprintf("×%d", n)
		}
	}
	return "{" + strings.Join(s, ",") + "}"
}

func list(ids []record.ActorID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return "{" + strings.Join(s, ",") + "}"
}

func short(s string) string {
	if s == "" {
		return "∅"
	}
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
