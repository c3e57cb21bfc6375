package minimize

import (
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// roundForm runs the round-form pass (docs/minimization.md): it removes whole rounds and phases, then late
// deliveries, then moves deliveries out of lockstep order earlier (kept when no larger and less residue).
func (m *minimizer) roundForm(ctx context.Context) error {
	lay, err := rounds.Build(ctx, m.sys, m.snapshotBest())
	if err != nil || !lay.Rounded {
		return err // a system without rounds has nothing to do here
	}
	settings := checkSettings{mode: dpor.TFB, maxSched: m.limitsOf(StageRoundForm).schedules}
	for _, step := range []func(*record.Trace, *rounds.Layout) [][]int{roundRemovals, m.lateRemovals} {
		if err := m.untilNoGain(ctx, func(base *record.Trace, lay *rounds.Layout) (*record.Trace, error) {
			drops, bp := step(base, lay), dpor.FromEvents(m.fp, base.Events)
			_, tr, err := m.firstKept(ctx, len(drops), settings, func(fp *fingerprint.Fingerprinter, i int) dpor.Plan {
				return removal(drops[i], -1)(fp, bp)
			}, func(r *record.Trace) bool { return smaller(r, base) })
			return tr, err
		}); err != nil {
			return err
		}
	}
	return m.untilNoGain(ctx, func(base *record.Trace, lay *rounds.Layout) (*record.Trace, error) {
		moves, residue := lockstepMoves(base, lay), lay.Totals().Residue
		_, tr, err := m.firstKept(ctx, len(moves), settings, func(fp *fingerprint.Fingerprinter, i int) dpor.Plan {
			return dpor.FromEvents(fp, moves[i])
		}, func(r *record.Trace) bool {
			if smaller(base, r) {
				return false
			}
			l, err := rounds.Build(ctx, m.sys, r) // not better in round form, or not laid out: no success
			return err == nil && l.Totals().Residue < residue
		})
		return tr, err
	})
}

// untilNoGain makes what step returns for the best trace the best trace
// unless it is larger (lockstep moves keep the size), until it returns nil.
func (m *minimizer) untilNoGain(ctx context.Context, step func(*record.Trace, *rounds.Layout) (*record.Trace, error)) error {
	for ctx.Err() == nil {
		base := m.snapshotBest()
		lay, err := rounds.Build(ctx, m.sys, base)
		if err != nil {
			return err
		}
		tr, err := step(base, lay)
		if err != nil || tr == nil || !m.replaceBest(tr, func(best *record.Trace) bool { return !smaller(best, tr) }) {
			return err
		}
	}
	return ctx.Err()
}

// roundRemovals lists every round's deliveries, then every phase's.
func roundRemovals(_ *record.Trace, lay *rounds.Layout) [][]int {
	var out, phases [][]int
	byRound := map[int][]int{}
	for _, d := range lay.Residue {
		byRound[d.Round] = append(byRound[d.Round], d.Step)
	}
	for _, r := range lay.Rounds {
		var all []int
		for _, ph := range r.Phases {
			var steps []int
			for _, d := range ph.Deliveries {
				steps = append(steps, d.Step)
			}
			phases = append(phases, steps)
			all = append(all, steps...)
		}
		all = append(all, byRound[r.Number]...)
		slices.Sort(all)
		out = append(out, all)
	}
	return append(out, phases...)
}

// lateRemovals lists each late delivery's queueSuffix.
func (m *minimizer) lateRemovals(base *record.Trace, lay *rounds.Layout) [][]int {
	fifo := m.fifo()
	var out [][]int
	for _, d := range lay.Residue {
		out = append(out, queueSuffix(base.Events, d.Step, fifo))
	}
	return out
}

// lockstepMoves moves each delivery out of lockstep order just before the
// first delivery of a later round or phase after its send.
func lockstepMoves(base *record.Trace, lay *rounds.Layout) [][]record.Event {
	type key struct{ round, phase int }
	less := func(a, b key) bool { return a.round < b.round || a.round == b.round && a.phase < b.phase }
	at := map[int]key{}
	for _, r := range lay.Rounds {
		for i, ph := range r.Phases {
			for _, d := range ph.Deliveries {
				at[d.Step] = key{r.Number, i}
			}
		}
	}
	ev := base.Events
	var out [][]record.Event
	for j := range ev {
		kj, ok := at[j]
		if !ok {
			continue
		}
		for i := max(ev[j].Cause+1, 0); i < j; i++ {
			if ki, ok := at[i]; ok && less(kj, ki) {
				out = append(out, slices.Concat(ev[:i], ev[j:j+1], ev[i:j], ev[j+1:]))
				break
			}
		}
	}
	return out
}
