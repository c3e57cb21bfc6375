package step

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// diff compares the current execution (made by what-ifs) with the
// original: the first step whose event differs, and the actors' states at
// the current step against the original's at the same step.
func (w *Walk) diff(ctx context.Context) error {
	if len(w.execs) == 1 {
		return errors.New("diff: this is the original execution (make a what-if first)")
	}
	orig, cur := w.execs[0], w.Session()
	first := -1
	for i := 0; i < max(orig.Len(), cur.Len()); i++ {
		if i >= orig.Len() || i >= cur.Len() || orig.Event(i).String() != cur.Event(i).String() {
			first = i
			break
		}
	}
	var parts []string
	switch {
	case first < 0:
		parts = append(parts, "the same events")
	case first >= orig.Len():
		parts = append(parts, fmt.Sprintf("the original ends at step %d; this one goes on: %s", orig.Len()-1, cur.Event(first)))
	case first >= cur.Len():
		parts = append(parts, fmt.Sprintf("this execution ends at step %d; the original goes on: %s", cur.Len()-1, orig.Event(first)))
	default:
		parts = append(parts, fmt.Sprintf("first different event at step %d: %s (original: %s)", first, cur.Event(first), orig.Event(first)))
	}
	k := min(w.point.Step, orig.Len()-1)
	p, err := orig.At(ctx, k)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	var states []string
	for i, st := range w.point.After {
		if i >= len(p.After) {
			break
		}
		o := p.After[i]
		if st.Running != o.Running {
			states = append(states, fmt.Sprintf("%s running=%v (original %v)", st.Actor, st.Running, o.Running))
			continue
		}
		ch := Changed(o, st)
		for _, f := range st.Fields {
			if ch[f.Name] {
				was := "∅"
				if g, ok := o.Field(f.Name); ok {
					was = g.Short
				}
				states = append(states, fmt.Sprintf("%s.%s=%s (original %s)", st.Actor, f.Name, f.Short, was))
			}
		}
	}
	if len(states) == 0 {
		parts = append(parts, fmt.Sprintf("at step %d every actor's state is the original's", w.point.Step))
	} else {
		parts = append(parts, fmt.Sprintf("at step %d: %s", w.point.Step, strings.Join(states, ", ")))
	}
	w.status = "diff: " + strings.Join(parts, "; ")
	return nil
}
