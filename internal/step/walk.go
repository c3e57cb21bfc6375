package step

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// Walk is a walk through an execution: the current execution (and the ones
// before each what-if, for undo), the current step, and how the screen is
// set up. The terminal UI and the scripted mode both drive a Walk with
// Commands and show its Screen, so they show the same information.
type Walk struct {
	sys  *record.System
	path string // the trace file walked through
	// execs is the original execution then one per what-if; outcomes[i]
	// is how execs[i+1] came about.
	execs    []Session
	outcomes []*Outcome
	point    *Point
	target   *record.Violation // the original trace's violation

	rounds     bool
	layout     *roundLayout // of the current execution, built on demand
	expanded   record.ActorID
	breakpoint string
	search     string
	help       bool
	status     string
	quit       bool

	// Program is the command that the hints of the walk name ("demi"
	// when empty): the binary running the walk.
	Program string
}

// NewWalk starts a walk through s, the execution read from path, at step 0.
func NewWalk(ctx context.Context, sys *record.System, path string, s Session) (*Walk, error) {
	w := &Walk{sys: sys, path: path, execs: []Session{s}, target: s.Header().Violation}
	if s.Len() == 0 {
		return nil, fmt.Errorf("%s has no events to step through", path)
	}
	if err := w.move(ctx, 0); err != nil {
		return nil, err
	}
	return w, nil
}

// Session returns the current execution.
func (w *Walk) Session() Session { return w.execs[len(w.execs)-1] }

// Step returns the current step.
func (w *Walk) Step() int { return w.point.Step }

// Quit reports whether the quit command was given.
func (w *Walk) Quit() bool { return w.quit }

// move goes to step k of the current execution.
func (w *Walk) move(ctx context.Context, k int) error {
	p, err := w.Session().At(ctx, k)
	if err != nil {
		return fmt.Errorf("step %d: %w", k, err)
	}
	w.point = p
	return nil
}

// Exec runs one command. An error is a command that cannot be run as
// given (an unknown actor, a message that is not pending, a file that
// exists): the walk is unchanged. Everything else, including "already at
// the last step", is reported in the status line.
func (w *Walk) Exec(ctx context.Context, c Command) error {
	w.status = ""
	if c.Op != OpHelp {
		w.help = false
	}
	s := w.Session()
	last := s.Len() - 1
	k := w.point.Step
	switch c.Op {
	case OpNext:
		if k == last {
			w.status = "already at the last step"
			return nil
		}
		return w.move(ctx, min(k+c.N, last))
	case OpPrev:
		if k == 0 {
			w.status = "already at step 0"
			return nil
		}
		return w.move(ctx, max(k-c.N, 0))
	case OpGoto:
		if c.N > last {
			return fmt.Errorf("goto: there is no step %d (steps 0 to %d)", c.N, last)
		}
		return w.move(ctx, c.N)
	case OpBreak, OpContinue:
		arg := c.Arg
		if c.Op == OpContinue {
			if w.breakpoint == "" {
				return errors.New("continue: no breakpoint set (break ACTOR|TYPE|ACTOR.FIELD [== VALUE])")
			}
			arg = w.breakpoint
		}
		cond, isCond, err := parseCondition(arg)
		if err != nil {
			return err
		}
		if isCond {
			if err := w.checkCondition(cond); err != nil {
				return err
			}
			w.breakpoint = arg
			return w.runToCondition(ctx, cond)
		}
		match, err := w.matcher(arg)
		if err != nil {
			return err
		}
		w.breakpoint = arg
		return w.runTo(ctx, "breakpoint "+arg, match)
	case OpDiff:
		return w.diff(ctx)
	case OpViolation:
		v := s.Header().Violation
		if v == nil {
			w.status = "this execution reaches no violation"
			return nil
		}
		if err := w.move(ctx, v.Event); err != nil {
			return err
		}
		w.status = fmt.Sprintf("the invariant breaks at step %d", v.Event)
		return nil
	case OpRounds:
		w.rounds = !w.rounds
		return nil
	case OpSearch:
		w.search = c.Arg
		text := strings.ToLower(c.Arg)
		return w.runTo(ctx, fmt.Sprintf("search %q", c.Arg), func(e record.Event) bool {
			return strings.Contains(strings.ToLower(e.String()), text)
		})
	case OpState:
		if c.Arg == "" {
			w.expanded = ""
			return nil
		}
		id := record.ActorID(c.Arg)
		if !slices.Contains(w.members(), id) {
			return fmt.Errorf("state: no actor %q (actors: %s)", c.Arg, joinActors(w.members()))
		}
		w.expanded = id
		return nil
	case OpDeliver, OpDrop, OpRestart, OpKill, OpInject:
		ch, err := w.change(c)
		if err != nil {
			return err
		}
		return w.whatIf(ctx, ch)
	case OpUndo:
		if len(w.execs) == 1 {
			w.status = "no what-if to undo"
			return nil
		}
		o := w.outcomes[len(w.outcomes)-1]
		w.execs, w.outcomes = w.execs[:len(w.execs)-1], w.outcomes[:len(w.outcomes)-1]
		w.layout = nil
		at := o.At - 1
		if at < 0 {
			at = k
		}
		if err := w.move(ctx, min(at, w.Session().Len()-1)); err != nil {
			return err
		}
		w.status = "undid " + describeChange(o.Change)
		return nil
	case OpSave:
		return w.save(c.Arg, c.Force)
	case OpHelp:
		w.help = !w.help
		return nil
	case OpQuit:
		w.quit = true
		return nil
	}
	return fmt.Errorf("unknown command")
}

// runTo goes to the next step after the current one whose event matches.
func (w *Walk) runTo(ctx context.Context, what string, match func(record.Event) bool) error {
	s := w.Session()
	for i := w.point.Step + 1; i < s.Len(); i++ {
		if match(s.Event(i)) {
			if err := w.move(ctx, i); err != nil {
				return err
			}
			w.status = fmt.Sprintf("%s: stopped at step %d", what, i)
			return nil
		}
	}
	w.status = fmt.Sprintf("%s: no later step matches", what)
	return nil
}

// matcher returns the breakpoint predicate for arg: the events of an actor
// (it sends or receives the message, or is the subject of an external
// event) or the deliveries and sends of a message type.
func (w *Walk) matcher(arg string) (func(record.Event) bool, error) {
	id := record.ActorID(arg)
	if slices.Contains(w.members(), id) {
		return func(e record.Event) bool {
			return e.From == id || e.To == id || e.Actor == id || slices.Contains(e.A, id) || slices.Contains(e.B, id)
		}, nil
	}
	types, err := w.sys.Types()
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(arg, "*")
	for _, t := range []string{name, "*" + name} {
		if _, ok := types.Lookup(t); ok {
			return func(e record.Event) bool { return e.Msg != nil && record.TypeName(e.Msg) == t }, nil
		}
	}
	return nil, fmt.Errorf("break: %q is neither an actor (%s) nor a message type of %s", arg, joinActors(w.members()), w.sys.Name)
}

func (w *Walk) members() []record.ActorID {
	ids := make([]record.ActorID, len(w.point.After))
	for i, st := range w.point.After {
		ids[i] = st.Actor
	}
	return ids
}

// change turns a what-if command into a Change, checking it against the
// current step.
func (w *Walk) change(c Command) (Change, error) {
	switch c.Op {
	case OpDeliver, OpDrop:
		id := record.MsgID(c.N)
		i := slices.IndexFunc(w.point.Pending, func(p Pending) bool { return p.ID == id })
		if i < 0 {
			return Change{}, fmt.Errorf("%s: message #%d is not pending at step %d", opName(c.Op), id, w.point.Step)
		}
		if c.Op == OpDrop {
			return Change{Drop: id}, nil
		}
		p := w.point.Pending[i]
		if !p.Deliverable {
			if p.Behind != 0 {
				return Change{}, fmt.Errorf("deliver: message #%d is queued behind #%d (FIFO %s→%s)", id, p.Behind, p.From, p.To)
			}
			return Change{}, fmt.Errorf("deliver: message #%d is addressed to %s, which is not running", id, p.To)
		}
		return Change{Event: record.Event{Kind: record.Deliver, ID: id, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer, Cause: p.Cause}}, nil
	case OpRestart, OpKill:
		id := record.ActorID(c.Arg)
		if !slices.Contains(w.members(), id) {
			return Change{}, fmt.Errorf("%s: no actor %q (actors: %s)", opName(c.Op), c.Arg, joinActors(w.members()))
		}
		if c.Op == OpKill {
			return Change{Event: record.KillEvent(id)}, nil
		}
		return Change{Event: record.RestartEvent(id)}, nil
	}
	e, err := ParseExternal(w.sys, w.members(), c.Arg)
	if err != nil {
		return Change{}, fmt.Errorf("inject: %w", err)
	}
	return Change{Event: e}, nil
}

func (w *Walk) whatIf(ctx context.Context, ch Change) error {
	next, o, err := w.Session().WhatIf(ctx, w.point.Step, ch)
	if err != nil {
		return fmt.Errorf("what-if: %w", err)
	}
	o.After = w.point.Step
	w.execs = append(w.execs, next)
	w.outcomes = append(w.outcomes, o)
	w.layout = nil
	at := o.At
	if at < 0 {
		at = w.point.Step
	}
	if err := w.move(ctx, min(at, next.Len()-1)); err != nil {
		return err
	}
	if o.At >= 0 {
		o.Change.Event = next.Event(o.At) // with the IDs the run gave it
	}
	w.status = fmt.Sprintf("what-if %d made a new execution of %d steps (u undoes it)", len(w.outcomes), next.Len())
	return nil
}

// String says what the what-if led to (first, so that a narrow screen
// shows it), compared with the original violation target, then what it
// was and how much of the rest of the schedule still applied.
func (o *Outcome) String(target *record.Violation) string {
	var b strings.Builder
	switch {
	case o.Violation == nil:
		b.WriteString("violation no longer reached")
	case target != nil && o.Violation.Fingerprint == target.Fingerprint:
		fmt.Fprintf(&b, "violation still reached, at step %d", o.Violation.Event)
	default:
		fmt.Fprintf(&b, "another violation, at step %d: %s", o.Violation.Event, o.Violation.Fingerprint)
	}
	b.WriteString(" ← " + describeChange(o.Change))
	if o.At >= 0 {
		fmt.Fprintf(&b, " at step %d", o.At)
	}
	fmt.Fprintf(&b, " (then %s of the schedule followed, %d no longer %s)", plural(o.Followed, "step"), o.Skipped,
		map[bool]string{true: "applies", false: "apply"}[o.Skipped == 1])
	return b.String()
}

func describeChange(c Change) string {
	if c.Drop != 0 {
		return fmt.Sprintf("drop #%d", c.Drop)
	}
	return c.Event.String()
}

func opName(op Op) string {
	for _, s := range commandSpecs() {
		if s.op == op {
			return s.name
		}
	}
	return "?"
}

func joinActors(ids []record.ActorID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
