package step

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/demi-project/demi/record"
)

// Style decorates the parts of a screen. Plain leaves text as it is (the
// scripted mode); the terminal UI colors it. A Style must not change the
// width of what it is given.
type Style interface {
	Title(s string) string
	Label(s string) string
	Changed(s string) string
	Bad(s string) string
	Good(s string) string
	Dim(s string) string
}

// Plain is the Style of the scripted mode: no decoration. What the colors
// of the terminal UI say is also said in words or marks (→ for a change,
// * for a deliverable message), so nothing is lost.
type Plain struct{}

func (Plain) Title(s string) string   { return s }
func (Plain) Label(s string) string   { return s }
func (Plain) Changed(s string) string { return s }
func (Plain) Bad(s string) string     { return s }
func (Plain) Good(s string) string    { return s }
func (Plain) Dim(s string) string     { return s }

// maxPending is how many pending messages a screen lists; maxWas the
// longest earlier value an expanded actor shows in full beside a changed
// field.
const (
	maxPending = 40
	maxWas     = 200
)

// Header renders the top of the screen: where the walk is, the event and
// the invariant.
func (scr *Screen) Header(st Style) []string {
	out := []string{st.Title("demi step · " + scr.Title)}
	pos := fmt.Sprintf("step %d of %d (%d events)", scr.Step, scr.Last, scr.Last+1)
	if scr.Round != "" {
		pos += " · " + scr.Round
	}
	out = append(out, st.Label(pos))
	out = append(out, st.Label("event     ")+scr.Event.String())
	if scr.Contents != "" {
		e := scr.Event
		from := e.From
		if e.Kind == record.Send {
			from = record.External
		}
		name := strings.TrimPrefix(record.TypeName(e.Msg), "*")
		switch {
		case e.Timer != "":
			out = append(out, st.Label("message   ")+fmt.Sprintf("timer %s fired at %s: %s%s", e.Timer, e.To, name, scr.Contents))
		case e.Kind == record.Send:
			out = append(out, st.Label("message   ")+fmt.Sprintf("sent %s→%s: %s%s", from, e.To, name, scr.Contents))
		default:
			out = append(out, st.Label("message   ")+fmt.Sprintf("delivered %s→%s: %s%s", from, e.To, name, scr.Contents))
		}
	}
	inv := st.Label("invariant ")
	switch {
	case scr.Check != nil:
		inv += st.Bad("VIOLATED: " + scr.Check.Fingerprint + ": " + scr.Check.Detail)
	case scr.Violation != nil && scr.Violation.Event > scr.Step:
		inv += st.Good("holds") + fmt.Sprintf(" (this execution breaks it at step %d: %s)", scr.Violation.Event, scr.Violation.Fingerprint)
	case scr.Violation != nil:
		inv += st.Good("holds")
	default:
		inv += st.Good("holds") + " (this execution never breaks it)"
	}
	out = append(out, inv)
	for _, wi := range scr.WhatIfs {
		out = append(out, st.Label("what-if   ")+wi)
	}
	return out
}

// Body renders the rest: the actors' states and the pending messages, or
// the round view, or the help.
func (scr *Screen) Body(st Style, width int) []string {
	if scr.Help != nil {
		out := []string{st.Title("commands (scripted mode: one a line; terminal: the key, then the argument if any)")}
		out = append(out, scr.Help...)
		return append(out, "", "? again (or any other command) leaves the help")
	}
	if scr.RoundView != nil {
		out := []string{st.Title(fmt.Sprintf("round view of steps 0-%d (r leaves it)", scr.Step))}
		return append(out, scr.RoundView...)
	}
	// The actors first: at 80×24 they are what the screen has room for;
	// the pending messages follow (scroll down to them).
	out := []string{st.Title("actors  (field=before→after: changed by this step)")}
	for _, a := range scr.Actors {
		out = append(out, a.lines(st, width)...)
	}
	out = append(out, "", st.Title(fmt.Sprintf("pending  %d (* deliverable, > delivered next by the schedule)", len(scr.Pending))))
	for i, p := range scr.Pending {
		if i == maxPending {
			out = append(out, st.Dim(fmt.Sprintf("   … %d more", len(scr.Pending)-maxPending)))
			break
		}
		mark := " "
		if p.Deliverable && !p.Dropped {
			mark = "*"
		}
		if p.ID == scr.Next {
			mark += ">"
		} else {
			mark += " "
		}
		line := fmt.Sprintf(" %s #%d ", mark, p.ID)
		if p.Timer != "" {
			line += fmt.Sprintf("timer %s at %s %s", p.Timer, p.To, record.FormatMessage(p.Msg))
		} else {
			line += fmt.Sprintf("%s→%s %s", p.From, p.To, record.FormatMessage(p.Msg))
		}
		if p.Behind != 0 {
			line += fmt.Sprintf(" (behind #%d)", p.Behind)
		}
		if !p.Deliverable && p.Behind == 0 {
			line += " (receiver not running)"
		}
		if p.Dropped {
			line += " (dropped by a what-if: never delivered)"
		}
		if p.Deliverable && !p.Dropped {
			out = append(out, line)
		} else {
			out = append(out, st.Dim(line))
		}
	}
	return out
}

func (a *ActorView) lines(st Style, width int) []string {
	head := string(a.Actor)
	switch {
	case !a.Running && a.Before.Running:
		head += "  " + st.Changed("stopped by this step")
	case !a.Running:
		head += "  " + st.Dim("not running")
	case !a.Before.Running:
		head += "  " + st.Changed("started by this step")
	case len(a.Changed) > 0:
		head += "  " + st.Changed("changed")
	}
	if a.Reflected {
		head += st.Dim("  (no Snapshot method: fields read by reflection)")
	}
	out := []string{st.Label(head)}
	if a.Expanded {
		for _, f := range a.Fields {
			text := f.Name + ": " + f.Full
			if a.Changed[f.Name] {
				if g, ok := a.Before.Field(f.Name); ok && a.Before.Running && len(g.Full) <= maxWas {
					text += "  (was " + g.Full + ")"
				} else if ok && a.Before.Running {
					text += "  (changed; was " + g.Short + ")"
				}
				out = append(out, wrapLong("  ", text, width, st.Changed)...)
			} else {
				out = append(out, wrapLong("  ", text, width, nil)...)
			}
		}
		return out
	}
	var items []string
	var styled []string
	hidden := 0
	for _, f := range a.Fields {
		// On a narrow screen (80 columns) an unchanged field holding an
		// empty value gives way to the others; state ACTOR shows it.
		if width < narrowWidth && !a.Changed[f.Name] && emptyValue(f.Short) {
			hidden++
			continue
		}
		text := f.Name + "=" + f.Short
		if a.Changed[f.Name] {
			if g, ok := a.Before.Field(f.Name); ok && a.Before.Running {
				text = f.Name + "=" + g.Short + "→" + f.Short
			}
			items, styled = append(items, text), append(styled, st.Changed(text))
		} else {
			items, styled = append(items, text), append(styled, text)
		}
	}
	if hidden > 0 {
		out[0] += st.Dim(fmt.Sprintf("  (%s hidden: empty)", plural(hidden, "field")))
	}
	return append(out, flow("  ", items, styled, width)...)
}

// narrowWidth is the screen width below which empty fields are hidden.
const narrowWidth = 100

// emptyValue reports whether a rendered value is empty: "", 0, false, an
// empty collection.
func emptyValue(v string) bool {
	switch v {
	case `""`, "0", "false", "[]", "map[]", "{}", "<nil>":
		return true
	}
	return false
}

// flow lays items out on lines of at most width runes, two spaces apart,
// each line starting with indent; styled holds the items as printed.
func flow(indent string, items, styled []string, width int) []string {
	var out []string
	line, n := indent, utf8.RuneCountInString(indent)
	empty := true
	for i, it := range items {
		w := utf8.RuneCountInString(it)
		if !empty && n+2+w > width {
			out = append(out, line)
			line, n, empty = indent, utf8.RuneCountInString(indent), true
		}
		if !empty {
			line += "  "
			n += 2
		}
		line += styled[i]
		n += w
		empty = false
	}
	if !empty {
		out = append(out, line)
	}
	return out
}

// wrapLong cuts a long text into lines of at most width runes, at spaces
// where it can, each starting with indent (continuation lines indented
// twice).
func wrapLong(indent, text string, width int, style func(string) string) []string {
	if style == nil {
		style = func(s string) string { return s }
	}
	r := []rune(text)
	var out []string
	first := true
	for len(r) > 0 {
		in := indent
		if !first {
			in = indent + "  "
		}
		room := max(width-utf8.RuneCountInString(in), 16)
		n := min(room, len(r))
		if n < len(r) {
			for i := n; i > room/2; i-- {
				if r[i] == ' ' {
					n = i
					break
				}
			}
		}
		out = append(out, in+style(strings.TrimRight(string(r[:n]), " ")))
		r = []rune(strings.TrimLeft(string(r[n:]), " "))
		first = false
	}
	if len(out) == 0 {
		out = append(out, indent)
	}
	return out
}

// Text renders the whole screen as plain text, width runes wide at most
// (except for long values of an expanded actor, which wrap).
func (scr *Screen) Text(width int) string {
	var b strings.Builder
	for _, l := range scr.Header(Plain{}) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	for _, l := range scr.Body(Plain{}, width) {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	if scr.Status != "" {
		b.WriteString("\n» " + scr.Status + "\n")
	}
	return b.String()
}
