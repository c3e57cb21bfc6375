package rounds

import (
	"fmt"
	"slices"

	"github.com/demi-project/demi/record"
)

// Totals sums a layout up the way paper 000's Table 2 does: how many rounds
// and phases the trace went through, how many of them a quorum (a majority
// of the members) took part in, and how its deliveries split: in round
// form, the asynchronous residue, or carrying no round at all (timers,
// external messages).
//
// A delivery is in round form when the schedule could be a lockstep one up
// to it: it is delivered in its own round, and no delivery before it
// belongs to a later round, or to a later phase of its round (phases in
// the order they first appear). The residue is the rest: late deliveries
// (the receiver had moved on) and deliveries out of lockstep order.
type Totals struct {
	Rounds       int `json:"rounds"`
	QuorumRounds int `json:"quorum_rounds"`
	Phases       int `json:"phases"`
	QuorumPhases int `json:"quorum_phases"`
	InRoundForm  int `json:"in_round_form"`
	// Residue = Late + OutOfOrder.
	Residue    int `json:"residue"`
	Late       int `json:"late"`
	OutOfOrder int `json:"out_of_order"`
	NoRound    int `json:"no_round"`
	Members    int `json:"members"`
}

// Totals returns the layout's totals. A round has a quorum when a majority
// of the members heard a message of that round; a phase when a majority
// of the members received a message of that phase.
func (l *Layout) Totals() Totals {
	t := Totals{Rounds: len(l.Rounds), Late: len(l.Residue), Members: len(l.Members)}
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
	t.OutOfOrder = l.outOfOrder()
	t.InRoundForm -= t.OutOfOrder
	t.Residue = t.Late + t.OutOfOrder
	return t
}

// outOfOrder counts the deliveries placed in their round whose (round,
// phase) is below that of a delivery before them in the schedule.
func (l *Layout) outOfOrder() int {
	type key struct{ round, phase int }
	at := map[int]key{} // step → its round and phase rank
	var steps []int
	for _, r := range l.Rounds {
		for i, ph := range r.Phases {
			for _, d := range ph.Deliveries {
				at[d.Step] = key{r.Number, i}
				steps = append(steps, d.Step)
			}
		}
	}
	slices.Sort(steps)
	n := 0
	var top key
	for i, s := range steps {
		k := at[s]
		if i > 0 && (k.round < top.round || k.round == top.round && k.phase < top.phase) {
			n++
			continue
		}
		top = k
	}
	return n
}

// write prints the totals as a small table, after a line that says what
// the columns mean.
func (t Totals) write(p *printer) {
	p.line("totals (✓: with a quorum, a majority of the %d members heard a message of the round or phase;", t.Members)
	unit := "deliveries"
	if t.Residue == 1 {
		unit = "delivery"
	}
	p.line("        late and out of order make the asynchronous residue: %d %s)", t.Residue, unit)
	head := []string{"#rnds", "#rnds✓", "#phs", "#phs✓", "in round form", "late", "out of order", "no round"}
	vals := []int{t.Rounds, t.QuorumRounds, t.Phases, t.QuorumPhases, t.InRoundForm, t.Late, t.OutOfOrder, t.NoRound}
	var h, v string
	for i, name := range head {
		w := max(len([]rune(name)), 5)
		h += fmt.Sprintf("  %*s", w, name)
		v += fmt.Sprintf("  %*d", w, vals[i])
	}
	p.line("%s", h)
	p.line("%s", v)
}
