package step

import (
	"context"
	"fmt"
	"strings"
)

// A condition is a breakpoint over an actor's state, written
// ACTOR.FIELD OP VALUE (break raft-2.role == leader) or ACTOR.FIELD alone,
// a watched field. The walk stops at the next step after which the
// condition holds and before which it did not (for a watched field: the
// next step that changes it). VALUE is compared with the field as the
// screen shows it, quotes around a string left out.
type condition struct {
	actor, field string
	op           string // "==", "!=" or "" (watch: the field changes)
	value        string
}

// parseCondition reads a condition; ok is false when arg is not one (an
// actor or a message type).
func parseCondition(arg string) (c condition, ok bool, err error) {
	ref, rest := arg, ""
	for _, op := range []string{"==", "!="} {
		if l, r, found := strings.Cut(arg, op); found {
			ref, rest, c.op = strings.TrimSpace(l), strings.TrimSpace(r), op
			break
		}
	}
	actor, field, found := strings.Cut(ref, ".")
	if !found || strings.ContainsAny(ref, " \t") {
		if c.op != "" {
			return c, false, fmt.Errorf("break: want ACTOR.FIELD %s VALUE, got %q", c.op, arg)
		}
		return c, false, nil
	}
	if actor == "" || field == "" || (c.op != "" && rest == "") {
		return c, false, fmt.Errorf("break: want ACTOR.FIELD [== VALUE | != VALUE], got %q", arg)
	}
	c.actor, c.field, c.value = actor, field, strings.Trim(rest, `"`)
	return c, true, nil
}

// String renders the condition as typed.
func (c condition) String() string {
	if c.op == "" {
		return c.actor + "." + c.field
	}
	return fmt.Sprintf("%s.%s %s %s", c.actor, c.field, c.op, c.value)
}

// value returns the field's value in the states (ok false when the actor
// is not running or has no such field).
func (c condition) valueIn(states []State) (string, bool) {
	for _, st := range states {
		if string(st.Actor) != c.actor {
			continue
		}
		if !st.Running {
			return "", false
		}
		f, ok := st.Field(c.field)
		return strings.Trim(f.Full, `"`), ok
	}
	return "", false
}

// holds reports whether the condition holds in the states.
func (c condition) holds(states []State) bool {
	v, ok := c.valueIn(states)
	switch c.op {
	case "==":
		return ok && v == c.value
	case "!=":
		return ok && v != c.value
	}
	return false
}

// stopsAt reports whether the walk stops at point p.
func (c condition) stopsAt(p *Point) bool {
	if c.op == "" {
		b, okb := c.valueIn(p.Before)
		a, oka := c.valueIn(p.After)
		return okb != oka || b != a
	}
	return c.holds(p.After) && !c.holds(p.Before)
}

// check refuses a condition naming no actor or field of the walk.
func (w *Walk) checkCondition(c condition) error {
	for _, st := range w.point.After {
		if string(st.Actor) == c.actor {
			return nil
		}
	}
	return fmt.Errorf("break: no actor %q (%s)", c.actor, joinActors(w.members()))
}

// runToCondition moves to the next step at which c stops the walk.
func (w *Walk) runToCondition(ctx context.Context, c condition) error {
	s := w.Session()
	for i := w.point.Step + 1; i < s.Len(); i++ {
		p, err := s.At(ctx, i)
		if err != nil {
			return err
		}
		if c.stopsAt(p) {
			if err := w.move(ctx, i); err != nil {
				return err
			}
			v, _ := c.valueIn(p.After)
			w.status = fmt.Sprintf("breakpoint %s: stopped at step %d (%s.%s=%s)", c, i, c.actor, c.field, v)
			return nil
		}
	}
	w.status = fmt.Sprintf("breakpoint %s: no later step matches", c)
	return nil
}
