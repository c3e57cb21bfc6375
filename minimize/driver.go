package minimize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
)

// The driver (docs/minimization.md, "The driver and its passes"): a call may
// use its share of the steps left, and ends at the stall point unless Whole.

// drive runs the pass table on the best trace.
func (m *minimizer) drive(ctx context.Context) error {
	if _, err := m.call(ctx, StageProvenance); err != nil {
		return err
	}
	m.afterProvenance = m.snapshotBest()
	if m.mode == dpor.STS {
		_, err := m.call(ctx, StageDdminExternals)
		return err
	}
	// The beam's second starts run first, their steps left out of the stall rule.
	start := m.steps.Load()
	if _, err := m.call(ctx, StageBeam); err != nil {
		return err
	}
	m.uncounted.Store(m.steps.Load() - start)
	m.descending = true
	err := m.descend(ctx)
	m.offerKept(1, true) // the budget or an interrupt ended the descent before the beam's call
	if err != nil {
		return err
	}
	return m.cleanup(ctx)
}

// cleanup runs the cleanup tier; from a best trace it reorders (round form) the removals and moves descend
// (each call within the stall point, no searches), and after they pay the cleanup runs again.
func (m *minimizer) cleanup(ctx context.Context) error {
	for {
		m.noStall = true
		before := m.snapshotBest()
		if _, err := m.round(ctx, Cleanup, false); err != nil || m.snapshotBest() == before {
			return err
		}
		skip := m.skip
		m.skip, m.noStall, before = m.leftOut(true), false, m.snapshotBest()
		err := m.descend(ctx)
		if m.skip = skip; err != nil || !smaller(m.snapshotBest(), before) {
			return err
		}
	}
}

// descend runs the removals, moves and searches until a round of moves and searches finds nothing.
func (m *minimizer) descend(ctx context.Context) error {
	for {
		for again := true; again; { // the removals to a fixpoint
			var err error
			if again, err = m.round(ctx, Removal, false); err != nil {
				return err
			}
			again = m.offerKept(m.limitsOf(StageBeam).lead, true) || again
		}
		if m.removalsOnly {
			return nil
		}
		m.movesFrom = cmp.Or(m.movesFrom, m.snapshotBest().Header.Externals)
		improved, err := m.round(ctx, Move, true)
		if err == nil && !improved {
			improved, err = m.round(ctx, Search, true)
		}
		if err == nil && !improved && !m.noStall {
			improved, err = m.resume(ctx)
		}
		if err != nil || !improved {
			return err
		}
	}
}

// offerKept offers the kept result once, when the best trace is more than lead times its size, and reports whether it
// became the best; the trace it displaced is the beam's other member, and between calls the beam's statistics count it.
func (m *minimizer) offerKept(lead int, between bool) bool {
	t, before := m.kept, m.snapshotBest()
	if !m.descending || t == nil || lead*total(t) >= total(before) {
		return false
	}
	m.kept = nil
	if !m.offer(t) {
		return false
	}
	if between {
		s := m.statsOf(passNamed(m.table, StageBeam))
		s.Successes, s.Removed = s.Successes+1, s.Removed+total(before)-total(t)
	}
	if m.other == nil { // descended when the run's own descent ends (resume)
		m.other, m.otherLeft = before, maps.Clone(m.left)
	}
	return true
}

// round calls the passes of tier once each and reports whether one made
// the best trace smaller (untilSuccess: stopping at the first).
func (m *minimizer) round(ctx context.Context, tier Tier, untilSuccess bool) (bool, error) {
	improved := false
	for _, p := range m.order(tier) {
		ok, err := m.call(ctx, p)
		improved = improved || ok
		if err != nil || ok && untilSuccess {
			return improved, err
		}
	}
	return improved, nil
}

// resume calls the beam, with twice its share, on its other member (descendOther) or a start's result on a
// route the best trace's removals cannot reach (route), when the run's own descent ends.
func (m *minimizer) resume(ctx context.Context) (bool, error) {
	m.resuming = true
	defer func() { m.resuming = false }()
	if m.other != nil || m.route() != nil {
		return m.call(ctx, StageBeam)
	}
	return false, nil
}

// order returns tier's pass names, highest measured gain first (a fork's ahead before all), ties in table order.
func (m *minimizer) order(tier Tier) (out []string) {
	for _, p := range m.table {
		if p.Tier == tier {
			out = append(out, p.Name)
		}
	}
	gain := func(name string) float64 {
		if m.ahead[name] {
			return math.Inf(1)
		}
		if s := m.passStats[name]; s != nil && s.Steps > 0 {
			return float64(s.Removed) / float64(s.Steps)
		}
		return 0
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(gain(b), gain(a)) })
	return out
}

// call runs one call of the pass named name on the best trace, when it applies and is not left out,
// and reports whether the best trace got smaller. Strategy nodiverge runs the removals only: the
// other passes build schedules outside the checks, which would diverge.
func (m *minimizer) call(ctx context.Context, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	p := passNamed(m.table, name)
	best := m.snapshotBest()
	if m.descending && p.Tier != Cleanup && m.proved(best) {
		return false, nil
	}
	if m.skip[name] || p.Once && m.calls[name] > 0 || !m.resuming && m.leftAlike(name, best) || m.mode == dpor.NoDiverge && p.Tier != Removal {
		return false, nil
	}
	if p.applies != nil && !p.applies(m, ctx) {
		m.left[name] = best
		return false, nil
	}
	end, done := m.callEnd(), m.steps.Load()
	if done >= end {
		return false, nil
	}
	m.calls[name]++
	m.callStart, m.whole = done, p.Whole
	stage := name
	if n := m.calls[name]; n > 1 {
		stage = RoundStage(name, n)
	}
	m.setStage(stage)
	share := p.Share
	if m.resuming {
		share = min(1, 2*share)
	}
	limit := m.shareOf(share, end)
	m.limit.Store(limit)
	err := p.run(m, ctx)
	m.endStage()
	switch {
	case err != nil && ctx.Err() != nil:
		err = ctx.Err()
	case errors.Is(err, errStepBudget):
		err = nil
	case err != nil:
		// The pass's own failure, not the run's: every trace offered so far
		// reproduced, so the run goes on without the pass (Result.Failures).
		m.failures.Lock()
		if f := fmt.Sprintf("stage %s: %v", stage, err); !slices.Contains(m.failures.errs, f) {
			m.failures.errs = append(m.failures.errs, f)
		}
		m.failures.Unlock()
		m.skip[name], err = true, nil
	}
	after := m.snapshotBest()
	if p.Tier == Removal {
		m.removalSteps += m.steps.Load() - done
	}
	m.left[name] = after
	return smaller(after, best), err
}

// proved reports whether the run's proofs cover best below its own size (optimal.Proofs.Covers): then
// no subsequence of its external events goes lower, and the run's descent ends (the cleanup tier still runs).
func (m *minimizer) proved(best *record.Trace) bool { return m.proofs.Covers(best, total(best)-1) }

// leftAlike reports whether the pass named name left best, or (but for
// shrink-contents) a trace differing from it in contents alone: it would find the same.
func (m *minimizer) leftAlike(name string, best *record.Trace) bool {
	l := m.left[name]
	return l == best || l != nil && name != StageShrinkContents && sameButContents(l, best)
}

// sameButContents reports whether a and b differ in message contents alone.
func sameButContents(a, b *record.Trace) bool {
	return slices.EqualFunc(a.Events, b.Events, func(x, y record.Event) bool {
		return record.ShapeOf(x) == record.ShapeOf(y) && x.From == y.From && x.Timer == y.Timer && x.Cause == y.Cause &&
			x.Cond == y.Cond && x.Limit == y.Limit
	})
}

// leftOut returns a copy of the passes m leaves out, the search tier added when searches.
func (m *minimizer) leftOut(searches bool) map[string]bool {
	skip := map[string]bool{}
	for _, p := range m.table {
		skip[p.Name] = m.skip[p.Name] || searches && p.Tier == Search
	}
	return skip
}

// callEnd is the step count no call may pass: the budget, less cleanup's part until cleanup runs.
func (m *minimizer) callEnd() int64 {
	if m.noStall {
		return m.cfg.Steps
	}
	return m.cfg.Steps - m.cfg.Steps/cleanupShare
}

// stallPoint is the step count at which the running pass call stalls: stallRatio times the steps up to the
// last improvement past it (at least stallFloor), but never less than minCallSteps past the call's start.
func (m *minimizer) stallPoint() int64 {
	last := m.lastImprovement.Load()
	return max(last+max(m.stallFloor, int64(stallRatio*float64(last)))+m.uncounted.Load(), m.callStart+minCallSteps)
}

// end is the step count at which the running pass must end.
func (m *minimizer) end() int64 {
	e := m.limit.Load()
	if !m.noStall && !m.whole {
		e = min(e, m.stallPoint())
	}
	if m.stallCap > 0 {
		e = min(e, m.stallCap)
	}
	return e
}

// stallCapOf is the bound a fork inherits: m's stall point, which the fork's
// improvements (of a trace larger than m's best) do not move.
func (m *minimizer) stallCapOf() int64 {
	if m.noStall || m.whole {
		return m.stallCap
	}
	return m.stallPoint()
}

// passNamed returns the row of table named name, or nil.
func passNamed(table []pass, name string) *pass {
	if i := slices.IndexFunc(table, func(p pass) bool { return p.Name == name }); i >= 0 {
		return &table[i]
	}
	return nil
}

// PassStats sums up the calls of one pass: the run's own, and those the beam's forks made (Fork).
type PassStats struct {
	Name      string `json:"name"`
	Tier      string `json:"tier"`
	Calls     int    `json:"calls"`
	Schedules int64  `json:"schedules"`
	Steps     int64  `json:"steps"`
	// Successes counts the calls after which the best trace was smaller (and, for the beam, its kept
	// result when the driver offers it later, between calls: offerKept), Removed what they removed.
	Successes int     `json:"successes"`
	Removed   int     `json:"removed"` // deliveries plus externals
	Seconds   float64 `json:"seconds"`
	// Fork sums up the calls the beam's forks made on their own best traces (their steps are the beam's too):
	// a success made the fork's trace smaller, which the run keeps if the fork's result is smaller than its own.
	Fork ForkStats `json:"fork"`
}

// ForkStats sums up a pass's calls in the beam's forks.
type ForkStats struct {
	Calls     int   `json:"calls"`
	Steps     int64 `json:"steps"`
	Successes int   `json:"successes"`
	Removed   int   `json:"removed"`
}

// notePass adds a stage row to its pass's statistics (statsOf).
func (m *minimizer) notePass(row StageStats, before *record.Trace) {
	if p := passNamed(m.table, PassOf(row.Name)); p != nil {
		s, d := m.statsOf(p), max(0, total(before)-(row.Deliveries+row.Externals))
		s.Calls, s.Schedules, s.Steps, s.Seconds = s.Calls+1, s.Schedules+row.Schedules, s.Steps+row.Steps, s.Seconds+row.Seconds
		s.Successes, s.Removed = s.Successes+int(boolBit(d > 0)), s.Removed+d
	}
}

// statsOf returns pass p's statistics, made on first use: the run's, or in a fork the run's record of its forks' calls.
func (m *minimizer) statsOf(p *pass) *PassStats {
	stats := m.passStats
	if stats == nil {
		stats = m.forkStats
	}
	if stats[p.Name] == nil {
		stats[p.Name] = &PassStats{Name: p.Name, Tier: p.Tier.String()}
	}
	return stats[p.Name]
}

// passResults returns the statistics of the passes called, by the run or its forks, in table order.
func (m *minimizer) passResults() (out []PassStats) {
	for _, p := range m.table {
		if s, f := m.passStats[p.Name], m.forkStats[p.Name]; s != nil || f != nil {
			out = append(out, *cmp.Or(s, &PassStats{Name: p.Name, Tier: p.Tier.String()}))
			if f != nil {
				out[len(out)-1].Fork = ForkStats{f.Calls, f.Steps, f.Successes, f.Removed}
			}
		}
	}
	return out
}

// total is the size traces are compared by first: deliveries plus externals.
func total(t *record.Trace) int { return t.Header.Deliveries + t.Header.Externals }

// failures collects the failed pass calls, once each (the beam's forks may fail alike).
type failures struct {
	sync.Mutex
	errs []string
}
