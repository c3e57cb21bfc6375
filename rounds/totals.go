package rounds

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// Totals sums a layout up the way paper 000's Table 2 does: how many rounds
// and phases the trace went through, how many of them a quorum (a majority
// of the members) took part in, and how many deliveries are in round form
// (delivered in their round), late (the asynchronous residue) or carry no
// round at all (timers, external messages).
type Totals struct {
	Rounds, QuorumRounds int
	Phases, QuorumPhases int
	InRoundForm          int
	Residue              int
	NoRound              int
	Members              int
}

// Totals returns the layout's totals. A round has a quorum when a majority
// of the members heard a message of that round; a phase when a majority
// of the members received a message of that phase.
func (l *Layout) Totals() Totals {
	t := Totals{Rounds: len(l.Rounds), Residue: len(l.Residue), Members: len(l.Members)}
	quorum := func(n int) bool { return t.Members > 0 && 2*n > t.Members }
	count := func(steps []Step) {
		for _, s := range steps {
			if s.Event.Kind == record.Deliver {
				t.NoRound++
			}
		}
	}
	count(l.Prelude)
	for _, r := range l.Rounds {
		heard := map[record.ActorID]bool{}
		for _, ph := range r.Phases {
			t.Phases++
			t.InRoundForm += len(ph.Deliveries)
			receivers := map[record.ActorID]bool{}
			for _, d := range ph.Deliveries {
				receivers[d.To] = true
				heard[d.To] = true
			}
			if quorum(len(receivers)) {
				t.QuorumPhases++
			}
		}
		if quorum(len(heard)) {
			t.QuorumRounds++
		}
		count(r.Other)
	}
	return t
}

// write prints the totals as a small table, after a line that says what
// the columns mean.
func (t Totals) write(p *printer) {
	p.line("totals (✓: with a quorum, a majority of the %d members heard a message of the round or phase)", t.Members)
	head := []string{"#rnds", "#rnds✓", "#phs", "#phs✓", "in round form", "residue", "no round"}
	vals := []int{t.Rounds, t.QuorumRounds, t.Phases, t.QuorumPhases, t.InRoundForm, t.Residue, t.NoRound}
	var h, v string
	for i, name := range head {
		w := max(len([]rune(name)), 5)
		h += fmt.Sprintf("  %*s", w, name)
		v += fmt.Sprintf("  %*d", w, vals[i])
	}
	p.line("%s", h)
	p.line("%s", v)
}
