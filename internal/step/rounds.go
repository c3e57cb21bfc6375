package step

import (
	"context"
	"fmt"
	"strings"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// roundLayout is where each step of an execution falls in the round view
// (package rounds): its round and phase, for systems whose messages carry
// a round (record.Rounded).
type roundLayout struct {
	rounded bool
	at      map[int]string // step → "round 3 · phase vote"
}

func buildRounds(ctx context.Context, sys *record.System, t *record.Trace) (*roundLayout, error) {
	lay, err := rounds.Build(ctx, sys, t)
	if err != nil {
		return nil, err
	}
	rl := &roundLayout{rounded: lay.Rounded, at: map[int]string{}}
	for _, s := range lay.Prelude {
		rl.at[s.Index] = "prelude (before the first round)"
	}
	for _, r := range lay.Rounds {
		for _, ph := range r.Phases {
			for _, d := range ph.Deliveries {
				rl.at[d.Step] = fmt.Sprintf("round %d · phase %s", r.Number, ph.Name)
			}
		}
		for _, s := range r.Other {
			rl.at[s.Index] = fmt.Sprintf("round %d · no phase (%s)", r.Number, kindWord(s.Event))
		}
	}
	for _, d := range lay.Residue {
		rl.at[d.Step] = fmt.Sprintf("round %d · phase %s, late: %s was in round %d", d.Round, d.Phase, d.To, d.ReceiverRound)
	}
	return rl, nil
}

func kindWord(e record.Event) string {
	if e.Kind == record.Deliver {
		if e.Timer != "" {
			return "timer"
		}
		return "message without a round"
	}
	return e.Kind.String()
}

// roundsOf returns the round and phase of step k, or "" when the system
// does not annotate rounds.
func (w *Walk) roundsOf(ctx context.Context, k int) string {
	if w.layout == nil {
		rl, err := buildRounds(ctx, w.sys, w.Session().Trace())
		if err != nil {
			rl = &roundLayout{}
		}
		w.layout = rl
	}
	if !w.layout.rounded {
		return ""
	}
	return w.layout.at[k]
}

// roundView lays out steps 0..k of the execution round by round, as
// `demi show --rounds` prints a trace.
func (w *Walk) roundView(ctx context.Context, k int) []string {
	t := w.Session().Trace()
	t.Events = t.Events[:k+1]
	t.Header.Violation = w.point.Check
	lay, err := rounds.Build(ctx, w.sys, t)
	if err != nil {
		return []string{"round view: " + err.Error()}
	}
	var b strings.Builder
	if err := lay.Write(&b); err != nil {
		return []string{"round view: " + err.Error()}
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
