package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/demi-project/demi/record"
)

// maxLabel bounds a diagram label, in runes; the event table has the rest.
const maxLabel = 100

// WriteMermaid writes the story as a Mermaid sequence diagram (without the
// Markdown fence): one participant per actor; one arrow per delivery,
// labelled with its step and message (a self-arrow for a timer); a crossed
// dotted arrow, at the step that sent it, for each message never
// delivered; external events, crashes and restarts as notes; a note across
// all actors where a new round or phase begins (for messages that carry a
// round; a late delivery is labelled late); the violation as a last note.
func (s *Story) WriteMermaid(w io.Writer) error {
	p := &printer{w: w}
	ids := map[record.ActorID]string{}
	p.line("sequenceDiagram")
	for i, a := range s.Actors {
		id := "a" + strconv.Itoa(i)
		if a == record.External {
			id = "ext"
		}
		ids[a] = id
		p.line("    participant %s as %s", id, mermaidText(string(a)))
	}
	all := "ext"
	if n := len(s.Actors); n > 1 {
		all = ids[s.Actors[0]] + "," + ids[s.Actors[n-1]]
	} else if n == 1 {
		all = ids[s.Actors[0]]
	}
	id := func(a record.ActorID) string {
		if v, ok := ids[a]; ok {
			return v
		}
		// An actor outside the members (a system that sends to a name it
		// does not run): give it a participant on the fly.
		v := "a" + strconv.Itoa(len(ids))
		ids[a] = v
		p.line("    participant %s as %s", v, mermaidText(string(a)))
		return v
	}
	note := func(over, format string, args ...any) {
		p.line("    Note over %s: %s", over, mermaidText(fmt.Sprintf(format, args...)))
	}
	lastRound, lastPhase, inRounds := 0, "", false
	for _, st := range s.Steps {
		e := st.Event
		switch e.Kind {
		case record.Deliver:
			if st.Rounded && !st.Late && (!inRounds || st.Round != lastRound || st.Phase != lastPhase) {
				inRounds, lastRound, lastPhase = true, st.Round, st.Phase
				note(all, "round %d, %s", st.Round, st.Phase)
			}
			label := fmt.Sprintf("%d: %s", st.Index, record.FormatMessage(e.Msg))
			if e.Timer != "" {
				label = fmt.Sprintf("%d: timer %s %s", st.Index, e.Timer, record.FormatMessage(e.Msg))
			}
			if st.Late {
				label += fmt.Sprintf(" (late: round %d, %s is in round %d)", st.Round, e.To, st.ReceiverRound)
			}
			p.line("    %s->>%s: %s", id(e.From), id(e.To), mermaidText(clip(label)))
		case record.Send:
			// The arrow from ext appears when the message is delivered (or
			// as lost, below).
		case record.Start, record.Kill, record.Restart:
			what := e.Kind.String()
			if e.Kind == record.Kill {
				what = "kill (crash)"
			}
			note(id(e.Actor), "%d: %s", st.Index, what)
		case record.Partition, record.Heal:
			note(all, "%d: %s {%s} | {%s}", st.Index, e.Kind, joinIDs(e.A), joinIDs(e.B))
		default:
			note(all, "%d: %s", st.Index, e.String())
		}
		for _, m := range st.Lost {
			p.line("    %s--x%s: %s", id(m.From), id(m.To),
				mermaidText(clip(fmt.Sprintf("never delivered (sent at %d): %s", m.Cause, record.FormatMessage(m.Msg)))))
		}
		if v := s.Violation(); v != nil && v.Event == st.Index {
			note(all, "violation after step %d: %s", v.Event, v.Fingerprint)
		}
	}
	return p.err
}

// mermaidText escapes s for a Mermaid label: every character outside a
// small safe set becomes an entity code #NNN; (Mermaid reads ; # and
// newlines as syntax, % starts a comment, < > & " are HTML).
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if safeRune(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return strings.TrimSpace(b.String())
}

func safeRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune(" .,:_-+=()[]{}/'!?@*|~^$", r)
}

// clip shortens s to maxLabel runes.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxLabel {
		return s
	}
	return string(r[:maxLabel-1]) + "…"
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
