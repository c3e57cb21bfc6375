package record

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Divergence is the first point where a run left the schedule it was
// following: the step could not be taken as the schedule says.
type Divergence struct {
	// Event is the index of the schedule step that could not be taken.
	Event int `json:"event"`
	// Expected is the step as the schedule has it; Got what the run had
	// instead (the pending message with that ID, or why none could be
	// delivered). Both are escaped: printed as they are when valid UTF-8 without control characters, strconv-quoted otherwise.
	Expected string `json:"expected"`
	Got      string `json:"got"`
	// Fields lists the fields that differ between the scheduled delivery
	// and the pending message with its ID, when there is one.
	Fields []FieldDiff `json:"fields,omitempty"`
}

// FieldDiff is one field that differs between the expected and the actual
// event, both values rendered and escaped.
type FieldDiff struct {
	Field    string `json:"field"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

func (f FieldDiff) String() string { return f.Field + " " + f.Expected + " ≠ " + f.Got }

func (d *Divergence) String() string {
	s := fmt.Sprintf("diverged at event %d: expected %s; got %s", d.Event, d.Expected, d.Got)
	if len(d.Fields) > 0 {
		parts := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			parts[i] = f.String()
		}
		s += " (differs in " + strings.Join(parts, ", ") + ")"
	}
	return s
}

// Error makes a divergence an error, so that a command that needs the
// trace to replay (a step-through, a report, a round view) can wrap it and
// its caller can tell "the trace does not replay" (errors.As) from bad
// input.
func (d *Divergence) Error() string { return d.String() }

// escape returns s as it is when it is valid UTF-8 without control
// characters, and otherwise quoted the way strconv.Quote does, so that a
// report never prints raw control bytes or invalid UTF-8.
func escape(s string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return strconv.Quote(s)
			}
		}
		if unicode.IsControl(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// deliveryDiff lists the fields in which pending message p differs from
// the scheduled delivery want.
func deliveryDiff(want *Event, p *Pending) []FieldDiff {
	var out []FieldDiff
	add := func(field, exp, got string) {
		out = append(out, FieldDiff{Field: field, Expected: escape(exp), Got: escape(got)})
	}
	if p.ID != want.ID {
		add("id", fmt.Sprintf("#%d", want.ID), fmt.Sprintf("#%d", p.ID))
	}
	if p.From != want.From {
		add("from", string(want.From), string(p.From))
	}
	if p.To != want.To {
		add("to", string(want.To), string(p.To))
	}
	if p.Timer != want.Timer {
		add("timer", strconv.Quote(want.Timer), strconv.Quote(p.Timer))
	}
	if tw, tp := TypeName(want.Msg), TypeName(p.Msg); tw != tp {
		add("type", tw, tp)
	} else if !SameMessage(want.Msg, p.Msg) {
		add("contents", FormatMessage(want.Msg), FormatMessage(p.Msg))
	}
	return out
}
