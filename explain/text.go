package explain

import (
	"fmt"
	"io"
	"strings"

	"github.com/demi-project/demi/record"
)

// String renders the line as the CLI prints it:
//
//	without step 12 (timer election fires at raft-2: ElectionTimeout{}): raft-2 never has role=candidate; no violation
func (l Line) String() string {
	var effect []string
	if l.OnlyRandom {
		effect = append(effect, fmt.Sprintf("it changes only %s's random draws (no state, and its messages are never delivered), then", actorOf(l.Event)))
	}
	effect = append(effect, l.Diff.text(l.Step))
	var outcome string
	switch {
	case l.Reached:
		outcome = fmt.Sprintf("the violation is still reached (after step %d): this event is not needed", l.At)
	case l.Other != nil:
		outcome = "another violation instead: " + record.Escape(l.Other.Fingerprint)
	default:
		outcome = "no violation"
	}
	return fmt.Sprintf("without step %d (%s): %s; %s", l.Step, l.Event, strings.Join(effect, " "), outcome)
}

// text says what the difference is, from the point of view of the run
// without step i.
func (d *Diff) text(i int) string {
	if d == nil {
		return "no actor's state differs"
	}
	at := ""
	var notes []string
	if d.Step != i {
		at = fmt.Sprintf("at step %d ", d.Step)
	}
	if d.Step != i && d.Never {
		notes = append(notes, fmt.Sprintf("from step %d with it", d.Step))
	}
	if len(d.More) > 0 {
		notes = append(notes, "also "+strings.Join(d.More, ", "))
	}
	also := ""
	if len(notes) > 0 {
		also = " (" + strings.Join(notes, "; ") + ")"
	}
	switch {
	case d.WantRunning && !d.GotRunning && d.Never:
		return fmt.Sprintf("%s never runs", d.Actor)
	case d.WantRunning && !d.GotRunning:
		return fmt.Sprintf("%s%s is not running", at, d.Actor)
	case !d.WantRunning && d.GotRunning:
		return fmt.Sprintf("%s%s is running, where it had stopped", at, d.Actor)
	case d.Want == "" && d.Got != "":
		return fmt.Sprintf("%s%s has %s=%s, which it did not have%s", at, d.Actor, d.Field, short(d.Got), also)
	case d.Never:
		return fmt.Sprintf("%s never has %s=%s%s", d.Actor, d.Field, short(d.Want), also)
	case d.Got == "":
		return fmt.Sprintf("%s%s has no %s (was %s)%s", at, d.Actor, d.Field, short(d.Want), also)
	}
	return fmt.Sprintf("%s%s has %s=%s, not %s%s", at, d.Actor, d.Field, short(d.Got), short(d.Want), also)
}

// actorOf is the actor whose handler runs for e.
func actorOf(e record.Event) record.ActorID {
	if e.Kind == record.Deliver {
		return e.To
	}
	return e.Actor
}

// short cuts a value to a readable length.
func short(s string) string {
	const width = 48
	s = record.Escape(s)
	if r := []rune(s); len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return s
}

// Write prints lines, one per event, after a heading naming the trace
// (as name) and its violation.
func Write(w io.Writer, name string, t *record.Trace, lines []Line) error {
	v := t.Header.Violation
	needed := 0
	for _, l := range lines {
		if !l.Reached {
			needed++
		}
	}
	if _, err := fmt.Fprintf(w, "%s: %s after step %d; each event left out in turn, the rest followed as demi check follows a trace:\n",
		name, record.Escape(v.Fingerprint), v.Event); err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l.String()); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d of %d events are needed: without any one of them the violation is not reached\n", needed, len(lines))
	return err
}
