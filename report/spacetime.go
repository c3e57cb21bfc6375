package report

import (
	"bytes"
	"fmt"
	"strings"

	svg "github.com/ajstarks/svgo"

	"github.com/demi-project/demi/record"
)

// The space-time diagram is drawn with github.com/ajstarks/svgo: it writes
// well-formed SVG elements and escapes text, so this file only decides
// geometry. The diagram is plain SVG inside the page: no script is needed
// to draw it, it prints, and the page stays self-contained.

// Geometry of the space-time diagram, in pixels.
const (
	stLeft   = 120 // room for the actor names
	stTop    = 46  // room for the round and phase labels
	stRow    = 58  // distance between two actor lines
	stStep   = 36  // distance between two steps
	stRight  = 60  // room after the last step (undelivered messages end there)
	stBottom = 30
)

// band is a run of steps during which the last delivered round-carrying
// message was of one round and phase.
type band struct {
	first, last int
	round       int
	phase       string
}

// bands splits the steps into round and phase bands.
func (s *Story) bands() []band {
	var out []band
	for _, st := range s.Steps {
		if st.Rounded && !st.Late {
			if n := len(out); n == 0 || out[n-1].round != st.Round || out[n-1].phase != st.Phase {
				out = append(out, band{first: st.Index, last: st.Index, round: st.Round, phase: st.Phase})
				continue
			}
		}
		if n := len(out); n > 0 {
			out[n-1].last = st.Index
		}
	}
	return out
}

// spaceTime draws the story as a space-time diagram: one horizontal line
// per actor, time going right one column per step, an arrow per delivery
// from the step that sent the message to the step that delivered it, a
// dotted arrow ending in a cross for each message never delivered, round
// and phase bands behind, external events and crashes as marks on the
// actors' lines, and the violation as a red line. Every message is a <g
// class="msg"> with a <title> (shown on hover) and a data-ref the page's
// script uses to show it on click.
func (s *Story) spaceTime() string {
	var b bytes.Buffer
	c := svg.New(&b)
	n := len(s.Steps)
	width := stLeft + (n+1)*stStep + stRight
	height := stTop + len(s.Actors)*stRow + stBottom
	c.Start(width, height, `id="spacetime"`, `role="img"`, `aria-label="space-time diagram"`)
	c.Def()
	c.Marker("arrow", 9, 4, 10, 8, `orient="auto"`, `markerUnits="userSpaceOnUse"`)
	c.Path("M0,0 L10,4 L0,8 z", `class="head"`)
	c.MarkerEnd()
	c.Marker("cross", 5, 5, 10, 10, `orient="auto"`, `markerUnits="userSpaceOnUse"`)
	c.Path("M0,0 L10,10 M10,0 L0,10", `class="cross"`)
	c.MarkerEnd()
	c.DefEnd()

	x := func(step int) int { return stLeft + stStep/2 + step*stStep }
	row := map[record.ActorID]int{}
	for i, a := range s.Actors {
		row[a] = stTop + stRow/2 + i*stRow
	}
	y := func(a record.ActorID) int {
		if v, ok := row[a]; ok {
			return v
		}
		return stTop // an actor outside the members: along the top
	}

	c.Group(`class="bands"`)
	lastRound := 0
	for i, bd := range s.bands() {
		x0, x1 := x(bd.first)-stStep/2, x(bd.last)+stStep/2
		cls := "band odd"
		if bd.round%2 == 0 {
			cls = "band even"
		}
		c.Rect(x0, stTop-6, x1-x0, height-stTop-stBottom+12, fmt.Sprintf(`class="%s"`, cls), fmt.Sprintf(`data-band="%d"`, i))
		c.Line(x0, stTop-18, x0, height-stBottom+6, `class="band-sep"`)
		if i == 0 || bd.round != lastRound {
			c.Text(x0+3, stTop-28, fmt.Sprintf("round %d", bd.round), `class="band-round"`)
		}
		lastRound = bd.round
		c.Text(x0+3, stTop-10, fit(bd.phase, (x1-x0-4)/6), `class="band-phase"`)
	}
	c.Gend()

	c.Group(`class="actors"`)
	for _, a := range s.Actors {
		c.Line(stLeft, y(a), width-stRight/2, y(a), `class="actor"`, fmt.Sprintf(`data-actor="%s"`, attr(string(a))))
		c.Text(stLeft-10, y(a)+4, string(a), `class="actor-name"`, `text-anchor="end"`)
	}
	c.Gend()

	c.Group(`class="externals"`)
	for _, st := range s.Steps {
		e := st.Event
		ref := fmt.Sprintf(`data-ref="e%d"`, st.Index)
		switch e.Kind {
		case record.Start, record.Restart:
			c.Group(`class="ext `+e.Kind.String()+`"`, ref)
			c.Title(fmt.Sprintf("step %d: %s %s", st.Index, e.Kind, e.Actor))
			c.Circle(x(st.Index), y(e.Actor), 6)
			c.Gend()
		case record.Kill:
			c.Group(`class="ext kill"`, ref)
			c.Title(fmt.Sprintf("step %d: kill %s (crash)", st.Index, e.Actor))
			c.Path(fmt.Sprintf("M%d,%d l12,12 M%d,%d l-12,12", x(st.Index)-6, y(e.Actor)-6, x(st.Index)+6, y(e.Actor)-6))
			c.Gend()
		case record.Send:
			c.Group(`class="ext send"`, ref)
			c.Title(fmt.Sprintf("step %d: %s", st.Index, e))
			c.Rect(x(st.Index)-5, y(record.External)-5, 10, 10)
			c.Gend()
		case record.Deliver:
		default: // partition, heal, wait markers: across all actors
			c.Group(`class="ext `+e.Kind.String()+`"`, ref)
			c.Title(fmt.Sprintf("step %d: %s", st.Index, e))
			c.Line(x(st.Index), stTop, x(st.Index), height-stBottom)
			c.Text(x(st.Index)+3, height-stBottom+14, e.Kind.String(), `class="ext-label"`)
			c.Gend()
		}
	}
	c.Gend()

	c.Group(`class="messages"`)
	for _, st := range s.Steps {
		e := st.Event
		if e.Kind != record.Deliver {
			continue
		}
		from := e.Cause
		if from < 0 || from >= st.Index {
			from = st.Index - 1
		}
		cls := "msg delivered"
		if e.Timer != "" {
			cls = "msg timer"
		}
		if st.Late {
			cls += " late"
		}
		c.Group(fmt.Sprintf(`class="%s"`, cls), fmt.Sprintf(`data-ref="e%d"`, st.Index), `tabindex="0"`)
		c.Title(s.messageTitle(st))
		x0, y0, x1, y1 := x(from), y(e.From), x(st.Index), y(e.To)
		if e.From == e.To {
			c.Path(fmt.Sprintf("M%d,%d Q%d,%d %d,%d", x0, y0, (x0+x1)/2, y0-stRow/2, x1, y1), `marker-end="url(#arrow)"`)
		} else {
			c.Line(x0, y0, x1, y1, `marker-end="url(#arrow)"`)
		}
		// The label, so that a screenshot or a printout tells the arrows
		// apart: the step and the message type, beside the arrowhead (the
		// whole message is the hover title).
		ly := y1 - 6
		if y1 < y0 || e.From == e.To {
			ly = y1 + 14
		}
		c.Text(x1-4, ly, fmt.Sprintf("%d %s", st.Index, typeName(e.Msg)), `class="msg-label"`, `text-anchor="end"`)
		c.Gend()
	}
	end := x(n-1) + stStep
	k := 0
	for _, st := range s.Steps {
		for _, m := range st.Lost {
			c.Group(`class="msg lost"`, fmt.Sprintf(`data-ref="l%d"`, k), `tabindex="0"`)
			c.Title(fmt.Sprintf("sent at step %d, never delivered: %s→%s %s", m.Cause, m.From, m.To, record.FormatMessage(m.Msg)))
			c.Line(x(m.Cause), y(m.From), end, y(m.To), `marker-end="url(#cross)"`)
			c.Gend()
			k++
		}
	}
	c.Gend()

	if v := s.Violation(); v != nil && v.Event >= 0 && v.Event < n {
		vx := x(v.Event) + stStep/2
		c.Group(`class="violation"`)
		c.Title(fmt.Sprintf("violation after step %d: %s: %s", v.Event, v.Fingerprint, v.Detail))
		c.Line(vx, stTop-6, vx, height-stBottom+6)
		c.Text(vx-4, height-6, "violation: "+v.Fingerprint, `class="violation-label"`, `text-anchor="end"`)
		c.Gend()
	}
	c.End()
	out := b.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:] // drop the XML declaration: the SVG is inline HTML
	}
	return out
}

// messageTitle is the hover text of a delivery.
func (s *Story) messageTitle(st Step) string {
	e := st.Event
	var b strings.Builder
	if e.Timer != "" {
		fmt.Fprintf(&b, "step %d: timer %s fires at %s: %s", st.Index, e.Timer, e.To, record.FormatMessage(e.Msg))
	} else {
		fmt.Fprintf(&b, "step %d: %s→%s %s", st.Index, e.From, e.To, record.FormatMessage(e.Msg))
	}
	if e.Cause >= 0 {
		fmt.Fprintf(&b, " (sent at step %d)", e.Cause)
	}
	if st.Rounded {
		fmt.Fprintf(&b, ", round %d %s", st.Round, st.Phase)
	}
	if st.Late {
		fmt.Fprintf(&b, ", late: %s was in round %d", e.To, st.ReceiverRound)
	}
	return b.String()
}

// typeName is a message's type without package or pointer.
func typeName(m record.Message) string {
	return strings.TrimPrefix(record.TypeName(m), "*")
}

// fit shortens s to at most n runes (at least one), for a label in a
// narrow band; the full name is in the table.
func fit(s string, n int) string {
	r := []rune(s)
	n = max(n, 1)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// attr escapes s for an attribute value.
func attr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("&quot;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
