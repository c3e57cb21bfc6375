// Package minimize turns a failing trace into a minimal causal sequence: a
// trace that still triggers the same violation (same violation fingerprint)
// with as few external events, deliveries and message contents as can be
// found within a time budget. It implements the DEMi paper's §3 and
// Appendix A, and the longer pipeline of DEMi's own implementation (see
// docs/minimization.md):
//
//  1. initial: replay the trace exactly; it must reproduce its violation.
//     On long traces (5,000 deliveries or more) the setup followed by the
//     shortest window of events before the violation that reproduces it
//     is the proof instead, and the best trace from then on (window.go):
//     the input is not replayed in full, and later checks cost a short run.
//  2. provenance: drop deliveries outside the violation's causal past.
//  3. ddmin-externals: delta debugging over the external events (kept
//     valid: a partition travels with its heal, a wait marker with the event
//     before it, a kill or restart needs its actor's start), each
//     subsequence checked with the single STSSched schedule. This is the
//     paper's "STSSched" column; strategy "sts" stops here.
//  4. ddmin-externals-wild: the same with every delivery a wildcard (once
//     client commands are gone, the messages that carried them change
//     contents and exact fingerprints stop matching).
//  5. clock-clusters: when messages carry a logical clock (record.Clocked),
//     whole clock clusters are removed, oldest first, with the later
//     deliveries matched by type (wildcards) and clock-advancing timers
//     (record.ClockAdvancer) removed one at a time along with them.
//  6. ddmin-internals: delta debugging over the deliveries, wildcarded, each
//     candidate checked with type-fingerprint backtracks (package dpor).
//  7. fifo-internals: deliveries left pending one at a time, trying only the
//     last delivery of each sender-receiver queue (removing a middle one
//     would break FIFO).
//  8. shrink-contents: external messages lose components (record.Shrinkable,
//     or slice elements, integers and strings found by reflection).
//  9. one-at-a-time: every causal cone, then every remaining delivery,
//     then every external event, tried for removal once more.
//  10. rounds 2, 3, ... while the step budget lasts: ddmin-externals-N (with
//     wildcards and TFB checks), clock-clusters-N, ddmin-internals-N and
//     one-at-a-time-N. A round that finds nothing multiplies the schedules
//     per check by 4, up to 64; the rounds end after a round at the
//     largest budget that finds nothing, or when the step budget is spent. Before the schedules per check
//     grow, reorder-N tries, once per trace, moves that reorder rather
//     than remove (reorder.go), on half of the remaining steps (a later
//     one on all of them once a move has helped); when one helps,
//     another round follows.
//     After the first reorder stage, internals-first runs once: a second
//     first pass from the trace after provenance, in the other order
//     (clock clusters and ddmin over the deliveries before the external
//     events, so that elections that stand in for client commands go
//     while the commands are still there; portfolio.go); its result
//     replaces the best trace when it has fewer deliveries plus externals.
//     For systems that declare interchangeable actors (record.Symmetry:
//     Raft), relabel-N runs at the start of every round, and relabel once
//     when the rounds end and once before round-form (an allowance of its
//     own, a hundredth of the step budget), whenever the best trace
//     changed and its run breaks the target's invariant with other actors
//     before the target:
//     the prefix up to that point, relabelled by a symmetry that maps
//     that violation onto the target, is checked and kept when it
//     reproduces the target; in the last look, a violation that may
//     break at the target's own step is tried the same way as a move,
//     with a descent (relabel.go).
//     When the rounds end, for systems whose runs fork soundly, the
//     shrink-search stage runs once when the best trace has a group of
//     identical external messages that can lose a component (a Bootstrap
//     member list): the edited plan is followed as far as it still goes
//     and the optimal package's exact search looks for the rest, and the
//     removal stages of a round re-minimize what it finds (shrinksearch.go;
//     an allowance of its own, a tenth of the step budget).
//     Then, when internals-first's result replaced a best trace whose
//     configuration messages name every actor the violation names by one
//     that leaves one of them out (an outsider leader), the
//     shrink-search-displaced stage runs once, on what remains of the
//     step budget (at least shrink-search's allowance): shrink-search's
//     searches on the replaced trace, with its group edits that keep the
//     named actors, for a trace smaller than the best one
//     (shrinkdisplaced.go).
//     Then the gather stage runs once, on an allowance of its own (a
//     twentieth of the step budget): an actor's round (its timer and the
//     external messages it then handles) takes a later external message
//     of the same type, which another round took, and another member's
//     start moves after the round's first message, or is inserted there
//     for a member the trace never starts; the plan is also tried
//     relabelled by every symmetry of the members (one leader taking two
//     client commands, the victim started after the first one; gather.go).
//     Then the retarget stage runs once, on an allowance of
//     its own (a quarter of the step budget): the reorder stage's moves,
//     led by retarget moves that address an external event to another
//     actor (a client command sent to the leader rather than to a
//     follower that forwards it, a restart of another member;
//     retarget.go), and ended by timer moves that fire a timer at another
//     actor, which trades places with the timer's actor in the timer's
//     causal cone (another member's election), and by handover moves that
//     give it the round together with the external messages the timer's
//     actor handled after it (handover.go), and, when crash-restarts are
//     in the run's fault model, by restart moves that restart a member at
//     a position, dropping the stale messages queued for it (restart.go),
//     and by repeat moves that run a timer's round again after a
//     cut with another actor in the timer's actor's place (a member that
//     holds the old leader's entries leads the next term; repeat.go),
//     and last by hasten moves that move every timer firing after a cut
//     to the cut with the requests it sent (later terms reached by bare
//     timeouts before the first round's votes; hasten.go).
//     When internals-first's result replaced the best trace, the
//     retarget-displaced stage runs once after it, on an allowance of its
//     own (a quarter of the step budget): the retarget stage's moves on
//     the trace internals-first replaced, whose route retarget may
//     shorten further; its result replaces the best trace when it has
//     fewer deliveries plus externals (displaced.go).
//     Then the merge stage runs once, on an allowance of its own (a
//     tenth of the step budget): sink moves send a forwarded external
//     message to the last actor of its forwarding chain, where it arrived
//     (sink.go), and merge moves move an actor's later round of external
//     handling into an earlier one, leaving the later round's timer cone
//     out (merge.go), candidacy merges leave out a round that handles
//     nothing with what it made its receiver refuse (mergecand.go), and
//     carried restarts hand a round to an actor restarted just before it,
//     the restart moved past the round (mergecarry.go); a move that helps
//     is followed by shrink-contents and the removal stages of a round.
//     After the last round, insert runs on a trace of at most 64
//     deliveries whose input has external events to insert (client
//     commands, crash-restarts): a suffix of the best trace is replaced
//     by the cheapest one a bounded exhaustive search finds, deliveries
//     and inserted external events included, and a descent trims the
//     rest (insert.go). It has an allowance of its own (a tenth of the
//     step budget).
//     Then, for systems whose runs fork soundly (raft, paxos; not the
//     etcd raft actors), near runs: a suffix of the best trace is
//     replaced by the cheapest one the optimal package's exact search over
//     forked runs finds from the state after the prefix (deliveries of
//     whatever is pending, the suffix's external events each applied or
//     left out), with cuts tried from the end back (near.go). It has an
//     allowance of its own (a tenth of the step budget).
//     Gather, retarget, merge, insert and near are the late stages
//     (late.go): while one of them changes the best trace, they run
//     again, insert, near, retarget with its own moves only, merge, then
//     gather, as insert-2, near-2, retarget-2, merge-2, gather-2, ...,
//     each skipped when the best trace is the one it
//     left, for at most three passes in all and, after the first, while
//     the later passes have used less than half the step budget.
//     After the late stages, the resample stage runs once, on an allowance
//     of its own (a fortieth of the step budget): random runs of the best
//     trace's external events (as demi fuzz makes them, the external
//     events in their order), each stopped one delivery short of the best
//     trace, from fixed seeds; a run that ends in the target violation,
//     or in the target's invariant with other actors relabelled onto it
//     by a symmetry, is a shorter trace on a route of its own, which the
//     removal stages of a round re-minimize, and shrink-search-2 after
//     them (resample.go). It runs last so that it can only make the
//     result smaller.
//  11. round-form: for systems whose messages carry a round, the schedule
//     is rewritten into lockstep rounds where that still reproduces the
//     violation: whole rounds and phases removed, late deliveries turned
//     into losses, deliveries out of lockstep order moved earlier; never
//     larger (roundform.go). It runs when the rounds end or the step
//     budget is spent, with an allowance of its own (a twentieth of the
//     step budget), not when the wall-clock budget runs out.
//  12. final: the result is replayed exactly and must reproduce the
//     violation.
//
// The names are constants (StageInitial, ...); FirstPass and RoundStages
// list them in this order.
//
// Every successful check's own run is the new trace, so every intermediate
// best is exact and replayable. Candidates are checked on Workers
// goroutines; when several are tried at once the first success in
// candidate order wins. Budgets are counted in steps (one event of one
// schedule a check runs), never in time: every stage gets a share of the
// step budget (Config.Steps) that remains, and a stage ends when its
// candidates are done or its share is used up, at a point counted the way
// a sequential scan would count it. The result therefore depends on the
// input and the step budget alone, not on Workers or the machine's load;
// the wall-clock Config.Budget is only a hard outer cap (a run that hits
// it returns the best trace so far).
package minimize

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// DefaultBudget is the wall-clock budget when Config.Budget is 0. It is a
// hard outer cap, three times what a run needs: on an idle 2-core machine
// a run of a trace of a few thousand deliveries ends on its step budget
// (DefaultSteps) within a minute, and a machine slowed down up to three
// times by other work still gives the same result (Result.OutOfTime says
// when the cap ended a run instead).
const DefaultBudget = 3 * time.Minute

// DefaultSteps is the work budget of a trace of fewer than 5,000
// deliveries when Config.Steps is 0, counted in steps: one step is one
// event of one schedule a check runs (a schedule of a 40-event candidate
// costs 40 steps, whatever the machine's load). A step costs about 2-3 µs
// of one core.
const DefaultSteps = 20_000_000

// DefaultStepsFor is the step budget of t when Config.Steps is 0:
// DefaultSteps, plus 1,000 steps per delivery on long traces (5,000
// deliveries or more), whose every check of the whole trace costs a run of
// its length.
func DefaultStepsFor(t *record.Trace) int64 {
	if d := t.Header.Deliveries; d >= longTrace {
		return DefaultSteps + 1000*int64(d)
	}
	return DefaultSteps
}

// Config controls a minimization.
type Config struct {
	Budget time.Duration // wall-clock budget, a hard outer cap (0 = DefaultBudget)
	// Steps is the work budget in steps (0 = DefaultSteps): every stage
	// gets a share of what remains, and a stage whose share is used up
	// ends at a point that does not depend on time or on Workers, so the
	// result depends only on the input and Steps unless Budget runs out
	// first.
	Steps    int64
	Strategy string         // "tfb" (default, full pipeline), "sts" (stop after STSSched/ddmin), "nodiverge"
	Workers  int            // parallel candidate checks; 0 = runtime.NumCPU(); the result does not depend on it
	Progress func(Progress) // optional, called periodically and at every stage change
	// Fingerprint is an optional user message fingerprint.
	Fingerprint fingerprint.Func
	// MaxSchedules bounds the schedules of one TFB check (0 = 16).
	MaxSchedules int
	// TFBScale is the trace length (in deliveries) up to which a check
	// gets the whole MaxSchedules; longer traces get proportionally fewer
	// (0 = 100).
	TFBScale int
}

// Progress is a snapshot of a running minimization.
type Progress struct {
	Stage                 string
	Deliveries, Externals int
	Schedules             int64
	Elapsed, Budget       time.Duration
}

// StageStats is the state after one stage.
type StageStats struct {
	Name       string `json:"name"`
	Deliveries int    `json:"deliveries"`
	Externals  int    `json:"externals"`
	Schedules  int64  `json:"schedules"`
	// Steps is the stage's work: the events of the schedules that count
	// toward the step budget (those a sequential scan runs).
	Steps   int64   `json:"steps,omitempty"`
	Seconds float64 `json:"seconds"`
}

// PacePoint is the best size after an improvement, against the schedules
// executed so far (the paper's Figure 2).
type PacePoint struct {
	Schedules  int64 `json:"schedules"`
	Deliveries int   `json:"deliveries"`
	Externals  int   `json:"externals"`
}

// Result is the outcome of Run.
type Result struct {
	// Trace is the best trace: exact and replayable, its header's violation
	// has the input's fingerprint.
	Trace *record.Trace
	// Stages has one row per stage, in order, from StageInitial to
	// StageFinal.
	Stages []StageStats
	// Final is the last row of Stages.
	Final StageStats
	// Pace is the best size after each improvement.
	Pace []PacePoint
	// Interrupted reports that ctx was cancelled; Trace is the best so far.
	Interrupted bool
	// OutOfTime reports that the wall-clock budget (Config.Budget) ended
	// the run before its step budget did: Trace is the best found in that
	// time, and a faster or less loaded machine, or a larger budget, may
	// find a smaller one. Without it the result depends only on the trace
	// and the step budget.
	OutOfTime bool
}

// ErrNotReproduced is returned when the input trace does not reproduce its
// own violation, so there is nothing to minimize.
var ErrNotReproduced = errors.New("the trace does not reproduce its violation")

// modeOf maps a Config.Strategy to the checks' mode.
func modeOf(strategy string) (dpor.Mode, bool) {
	switch strategy {
	case "", "tfb":
		return dpor.TFB, true
	case "sts":
		return dpor.STS, true
	case "nodiverge":
		return dpor.NoDiverge, true
	}
	return 0, false
}

// ValidStrategy reports whether s is an accepted strategy name.
func ValidStrategy(s string) bool { _, ok := modeOf(s); return ok }

type minimizer struct {
	sys      *record.System
	opts     record.Options
	resolved record.Options
	seed     uint64
	target   string
	cfg      Config
	mode     dpor.Mode
	strat    string
	fp       *fingerprint.Fingerprinter
	checks   []*dpor.Checker
	// tallies holds each checker's schedule count in a scan (firstIn).
	tallies map[*dpor.Checker]*tally
	// maxComponents is, per Shrinkable message type, the most components
	// a message of the input had.
	maxComponents map[string]int
	// escalation multiplies the schedule budget of TFB checks; it grows
	// when a round finds nothing.
	escalation int
	// dropped holds the input's external events the reorder stage may
	// re-insert (reorder.go).
	dropped []record.Event
	// reordered is the last best trace on which every reorder move failed.
	reordered *record.Trace
	// displaced is the best trace that internals-first's result replaced
	// (nil if it replaced none), and displacedReordered whether every
	// reorder move had failed on it (retarget-displaced, displaced.go).
	displaced          *record.Trace
	displacedReordered bool

	start     time.Time
	budget    time.Duration
	schedules atomic.Int64
	// steps is the work done so far, counted deterministically (see
	// firstTrace); limit is where the running stage must end.
	steps atomic.Int64
	limit atomic.Int64

	mu       sync.Mutex // guards best, stage, pace, stages (read by progress)
	best     *record.Trace
	stage    string
	pace     []PacePoint
	stages   []StageStats
	stageT0  time.Time
	stageS0  int64
	stageW0  int64
	progress sync.Mutex // serializes Progress calls
}

// Run minimizes t, a trace of sys that records a violation. When ctx is
// cancelled Run returns the best trace found so far with Interrupted set.
func Run(ctx context.Context, sys *record.System, t *record.Trace, cfg Config) (*Result, error) {
	if t == nil || t.Header.Violation == nil || t.Header.Violation.Fingerprint == "" {
		return nil, errors.New("minimize: the trace records no violation")
	}
	mode, ok := modeOf(cfg.Strategy)
	if !ok {
		return nil, fmt.Errorf("minimize: unknown strategy %q (want tfb, sts or nodiverge)", cfg.Strategy)
	}
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.MaxSchedules <= 0 {
		cfg.MaxSchedules = 16
	}
	if cfg.TFBScale <= 0 {
		cfg.TFBScale = 100
	}
	if cfg.Steps <= 0 {
		cfg.Steps = DefaultStepsFor(t)
	}
	var err error
	m := &minimizer{sys: sys, opts: t.Header.OptionMap(), seed: t.Header.Seed,
		target: t.Header.Violation.Fingerprint, cfg: cfg, mode: mode, strat: cfg.Strategy,
		fp: fingerprint.For(sys, cfg.Fingerprint), start: time.Now(), budget: cfg.Budget}
	if m.strat == "" {
		m.strat = "tfb"
	}
	m.escalation = 1
	if m.resolved, err = sys.Resolve(m.opts); err != nil {
		return nil, fmt.Errorf("minimize: %w", err)
	}

	// Stage "initial": the input must reproduce its violation exactly. On
	// a long trace a short window of it that reproduces the violation is
	// the proof, and the input is not replayed in full (window.go). The
	// budget counts from here.
	m.stageT0 = m.start
	m.setStage(StageInitial)
	deadline, cancel := context.WithDeadline(ctx, m.start.Add(cfg.Budget))
	defer cancel()
	m.limit.Store(m.shareOf(0.1))
	win, err := m.windowFirst(ctx, deadline, t)
	if err != nil {
		return nil, err
	}
	m.best = t
	var replayed *record.Trace // the input's exact replay, verified
	if win == nil {
		rep, err := replay.Run(deadline, sys, t)
		if err != nil {
			if ctx.Err() == nil && deadline.Err() != nil {
				return nil, fmt.Errorf("minimize: the budget of %s ran out while replaying the input, before its violation was reproduced: %w", cfg.Budget, err)
			}
			return nil, fmt.Errorf("minimize: replaying the input: %w", err)
		}
		m.schedules.Add(1)
		if !rep.Reproduced {
			why := "no violation"
			if rep.Divergence != nil {
				why = rep.Divergence.String()
			} else if rep.Violation != nil {
				why = "a different violation: " + rep.Violation.Fingerprint
			}
			return nil, fmt.Errorf("%w (%s)", ErrNotReproduced, why)
		}
		m.best = rep.Sim.Trace(rep.Violation)
		m.best.Events = append([]record.Event(nil), m.best.Events...)
		replayed = m.best
	}
	m.maxComponents = map[string]int{}
	for _, e := range m.best.Events {
		if sh, ok := e.Msg.(record.Shrinkable); ok && e.Kind == record.Send {
			name := record.TypeName(e.Msg)
			m.maxComponents[name] = max(m.maxComponents[name], sh.Components())
		}
	}
	m.dropped = reinsertable(m.best.Events)
	m.recordPace()
	m.endStage()
	if win != nil {
		m.offer(win)
	}

	if err := m.newChecks(); err != nil {
		return nil, err
	}

	stop := m.startProgress()
	runErr := m.pipeline(deadline)
	outOfTime := ctx.Err() == nil && deadline.Err() != nil
	cancel()
	stop()

	res := &Result{Interrupted: ctx.Err() != nil, OutOfTime: outOfTime}
	if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
		return nil, runErr
	}
	// Stage "final": verification by exact replay, with a fresh context so
	// that an interrupted run still verifies what it writes. The input's
	// own replay, when nothing smaller was found, is verified already (on
	// a long trace a second replay would take as long as the first).
	m.setStage(StageFinal)
	best := m.snapshotBest()
	if best != replayed {
		vctx, vcancel := context.WithTimeout(context.Background(), time.Minute)
		defer vcancel()
		rep, err := replay.Run(vctx, sys, best)
		if err != nil {
			return nil, fmt.Errorf("minimize: verifying the result: %w", err)
		}
		m.schedules.Add(1)
		if !rep.Reproduced {
			return nil, fmt.Errorf("minimize: internal error: the minimized trace does not replay its violation (%v)", rep.Divergence)
		}
	}
	m.endStage()
	best.Header.Note = fmt.Sprintf("minimized by demi (strategy %s) from %d deliveries and %d externals",
		m.strat, t.Header.Deliveries, t.Header.Externals)
	res.Trace = best
	m.mu.Lock()
	res.Stages = append([]StageStats(nil), m.stages...)
	res.Pace = append([]PacePoint(nil), m.pace...)
	m.mu.Unlock()
	res.Final = res.Stages[len(res.Stages)-1]
	return res, nil
}

// newChecks makes the workers' checkers, once.
func (m *minimizer) newChecks() error {
	if m.checks != nil {
		return nil
	}
	var allowed *dpor.Transitions
	if m.mode == dpor.NoDiverge {
		var err error
		allowed, err = dpor.Observe(m.sys, m.opts, m.seed, m.best.Events, m.best.Header.Violation, m.cfg.Fingerprint)
		if err != nil {
			return fmt.Errorf("minimize: %w", err)
		}
	}
	m.tallies = map[*dpor.Checker]*tally{}
	for i := 0; i < m.cfg.Workers; i++ {
		c, err := dpor.New(dpor.Config{System: m.sys, Options: m.opts, Seed: m.seed, Target: m.target,
			Mode: dpor.STS, MaxSchedules: 1, Fingerprint: m.cfg.Fingerprint, Allowed: allowed})
		if err != nil {
			return fmt.Errorf("minimize: %w", err)
		}
		m.checks = append(m.checks, c)
		m.tallies[c] = &tally{}
	}
	return nil
}

// pipeline runs the stages of the strategy; each keeps the best so far.
// Every stage may use a share of the step budget that remains when it
// starts; round-form has an allowance of its own, so that it also runs
// after the budget is spent.
func (m *minimizer) pipeline(ctx context.Context) error {
	if err := m.runStage(ctx, StageProvenance, m.shareOf(0.05), m.provenance); err != nil {
		return err
	}
	afterProvenance := m.snapshotBest()
	stages := []stage{
		{StageDdminExternals, 0.4, m.ddminExternals},
	}
	if m.mode != dpor.STS {
		stages = append(stages,
			stage{StageDdminExternalsWild, 0.3, m.ddminExternalsWild},
			stage{StageClockClusters, 0.3, m.clockClusters},
			stage{StageDdminInternals, 0.5, m.ddminInternals},
			stage{StageFifoInternals, 0.2, m.fifoInternals},
			stage{StageShrinkContents, 0.3, m.shrinkContents},
			stage{StageOneAtATime, 1, m.oneAtATime},
		)
	}
	for _, s := range stages {
		if err := m.runStage(ctx, s.name, m.shareOf(s.share), s.run); err != nil {
			return err
		}
	}
	if m.mode == dpor.STS {
		return nil
	}
	// Further rounds while the step budget lasts: a removal can open the
	// way for others, and a round that finds nothing grants the next one
	// four times the schedules per check (DPOR may stray further from the
	// guide), up to maxEscalation; the rounds end after a round at the
	// largest budget that finds nothing, or when the step budget is spent.
	// Neither depends on time.
	var reordered *record.Trace  // the last trace the reorder stage started from
	portfolio := false           // whether internals-first has run
	var relabelled *record.Trace // the last trace the relabel stage looked at
	for round := 2; ctx.Err() == nil && !m.spent(); round++ {
		// nodiverge runs the removal stages only: the relabel, reorder,
		// search and late stages build schedules outside the checks,
		// which would diverge.
		if m.mode != dpor.NoDiverge {
			if err := m.relabelStage(ctx, RoundStage(StageRelabel, round), &relabelled, false); err != nil {
				return err
			}
		}
		before := m.snapshotBest()
		for _, s := range []stage{
			{StageDdminExternals, 0.2, m.ddminExternalsTFB},
			{StageClockClusters, 0.3, m.clockClusters},
			{StageDdminInternals, 0.5, m.ddminInternals},
			{StageOneAtATime, 1, m.oneAtATime},
		} {
			if err := m.runStage(ctx, RoundStage(s.name, round), m.shareOf(s.share), s.run); err != nil {
				return err
			}
		}
		if m.snapshotBest() == before {
			// Removals found nothing: once per trace, try the moves that
			// reorder (reorder.go) before granting more schedules.
			if reordered != before && m.mode != dpor.NoDiverge {
				reordered = before
				// A reorder stage may use half of what remains. A later
				// one may use all of it once one of its moves has helped;
				// one whose moves all failed within that half leaves the
				// rest to the rounds that follow with more schedules per
				// check, which cost far fewer steps than a reorder of the
				// same trace. The first one stays within its half, so
				// that internals-first (portfolio.go), which follows it
				// once, still has steps to run.
				half := m.shareOf(0.5)
				full := half
				if portfolio {
					full = m.shareOf(1)
				}
				if err := m.runStage(ctx, RoundStage(StageReorder, round), half, m.reorderUpTo(full)); err != nil {
					return err
				}
				if !portfolio {
					portfolio = true
					if err := m.runStage(ctx, StageInternalsFirst, m.shareOf(0.5), m.internalsFirst(afterProvenance)); err != nil {
						return err
					}
				}
				if m.snapshotBest() != before {
					continue
				}
			}
			if m.escalation >= maxEscalation {
				break
			}
			m.escalation *= 4
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.mode == dpor.NoDiverge {
		return nil
	}
	if err := m.relabelStage(ctx, StageRelabel, &relabelled, false); err != nil {
		return err
	}
	if m.shrinkSearches(ctx) {
		if err := m.runStage(ctx, StageShrinkSearch, m.steps.Load()+m.cfg.Steps/shrinkSearchShare, m.shrinkSearch); err != nil {
			return err
		}
	}
	if m.shrinkDisplaces(ctx) { // shrinkdisplaced.go
		if err := m.runStage(ctx, StageShrinkSearchDisplaced, max(m.steps.Load()+m.cfg.Steps/shrinkSearchShare, m.cfg.Steps), m.shrinkSearchDisplaced); err != nil {
			return err
		}
	}
	if err := m.lateStages(ctx); err != nil { // late.go: retarget, insert, near
		return err
	}
	if err := m.resampleStage(ctx); err != nil { // resample.go
		return err
	}
	if err := m.relabelStage(ctx, StageRelabel, &relabelled, true); err != nil {
		return err
	}
	return m.runStage(ctx, StageRoundForm, m.steps.Load()+m.cfg.Steps/roundFormShare, m.roundForm)
}

// stage is a stage of the pipeline: its name, the share of the remaining
// step budget it may use, and what it does.
type stage struct {
	name  string
	share float64
	run   func(ctx context.Context) error
}

// maxEscalation bounds the growth of the schedule budget per check; from
// broadEscalation on, TFB checks also backtrack on messages of other types
// (plain DPOR), after the type-matching ones.
const (
	maxEscalation   = 64
	broadEscalation = 4
)

// roundFormShare: the round-form stage may use Config.Steps/roundFormShare
// steps beyond the step budget.
const roundFormShare = 20

// errStepBudget ends a stage whose share of the step budget is used up.
var errStepBudget = errors.New("the stage's share of the step budget is used up")

// shareOf returns the step count at which a stage that may use share of
// the remaining step budget must end.
func (m *minimizer) shareOf(share float64) int64 {
	done := m.steps.Load()
	return done + int64(float64(max(m.cfg.Steps-done, 0))*share)
}

// spent reports whether the step budget is used up.
func (m *minimizer) spent() bool { return m.steps.Load() >= m.cfg.Steps }

// runStage runs one stage until it ends or the step count reaches limit.
func (m *minimizer) runStage(ctx context.Context, name string, limit int64, run func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.setStage(name)
	m.limit.Store(limit)
	err := run(ctx)
	m.endStage()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, errStepBudget) {
		return fmt.Errorf("minimize: stage %s: %w", name, err)
	}
	return nil
}

// ---- best trace, stages, progress ----

func (m *minimizer) snapshotBest() *record.Trace {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.best
}

// smaller orders traces: fewer deliveries plus externals, then fewer
// deliveries, then lighter external message contents.
func smaller(a, b *record.Trace) bool {
	ta, tb := a.Header.Deliveries+a.Header.Externals, b.Header.Deliveries+b.Header.Externals
	if ta != tb {
		return ta < tb
	}
	if a.Header.Deliveries != b.Header.Deliveries {
		return a.Header.Deliveries < b.Header.Deliveries
	}
	return weight(a) < weight(b)
}

// offer makes tr the best trace if it is smaller. It reports whether it was.
func (m *minimizer) offer(tr *record.Trace) bool {
	return m.replaceBest(tr, func(best *record.Trace) bool { return smaller(tr, best) })
}

// replaceBest makes tr the best trace if take(best) holds, and records the
// pace if it did. It reports whether it did.
func (m *minimizer) replaceBest(tr *record.Trace, take func(best *record.Trace) bool) bool {
	m.mu.Lock()
	ok := take(m.best)
	if ok {
		m.best = tr
	}
	m.mu.Unlock()
	if ok {
		m.recordPace()
	}
	return ok
}

func (m *minimizer) recordPace() {
	m.mu.Lock()
	m.pace = append(m.pace, PacePoint{Schedules: m.schedules.Load(), Deliveries: m.best.Header.Deliveries, Externals: m.best.Header.Externals})
	m.mu.Unlock()
}

func (m *minimizer) setStage(name string) {
	m.mu.Lock()
	m.stage = name
	m.stageT0 = time.Now()
	m.stageS0 = m.schedules.Load()
	m.stageW0 = m.steps.Load()
	m.mu.Unlock()
	m.report()
}

func (m *minimizer) endStage() {
	m.mu.Lock()
	now := m.schedules.Load()
	m.stages = append(m.stages, StageStats{Name: m.stage, Deliveries: m.best.Header.Deliveries,
		Externals: m.best.Header.Externals, Schedules: now - m.stageS0, Steps: m.steps.Load() - m.stageW0,
		Seconds: time.Since(m.stageT0).Seconds()})
	m.mu.Unlock()
}

func (m *minimizer) report() {
	if m.cfg.Progress == nil {
		return
	}
	m.mu.Lock()
	p := Progress{Stage: m.stage, Schedules: m.schedules.Load(), Elapsed: time.Since(m.start), Budget: m.budget}
	if m.best != nil {
		p.Deliveries, p.Externals = m.best.Header.Deliveries, m.best.Header.Externals
	}
	m.mu.Unlock()
	m.progress.Lock()
	m.cfg.Progress(p)
	m.progress.Unlock()
}

// startProgress reports progress every 250ms until the returned func is
// called.
func (m *minimizer) startProgress() func() {
	if m.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				m.report()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// ---- parallel candidate checks ----

// candidate builds the plan of candidate i; ok=false skips it.
type candidate func(fp *fingerprint.Fingerprinter, i int) (plan dpor.Plan, ok bool)

// attempt checks candidate i on c and returns the trace it found (or nil)
// and its steps: the events of the schedules it ran.
type attempt func(c *dpor.Checker, i int) (tr *record.Trace, steps int64, err error)

// first checks candidates 0..n-1 in mode with a budget of maxSched
// schedules each, on the workers, and returns the lowest index whose check
// reproduced the violation and its trace, or -1. Candidates after a success
// are abandoned, candidates before it are always finished, so the answer is
// the one a sequential scan would give.
func (m *minimizer) first(ctx context.Context, n int, mode dpor.Mode, maxSched int, gen candidate) (int, *record.Trace, error) {
	if mode == dpor.STS {
		maxSched = 1
	}
	if m.mode == dpor.NoDiverge {
		// Every check of the nodiverge strategy (the paper's NoDiverge):
		// the same schedules, backtracks included, each aborted as soon
		// as it makes a transition the original run never made.
		mode = dpor.NoDiverge
	}
	broad := m.escalation >= broadEscalation
	return m.firstTrace(ctx, n, scanChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		c.SetMode(mode)
		c.SetMaxSchedules(maxSched)
		c.SetBroad(broad)
		plan, ok := gen(c.Fingerprinter(), i)
		if !ok {
			return nil, 0, nil
		}
		r, err := c.Check(ctx, plan)
		m.ran(c, r.Schedules)
		return r.Trace, int64(r.Schedules) * int64(len(plan)), err
	})
}

// scanChunk is how many candidates firstTrace checks between two looks at
// the step budget.
const scanChunk = 16

// firstTrace runs try for candidates 0..n-1 on the workers and returns the
// lowest index whose try returned a trace, and that trace, or -1.
// Candidates after a success are abandoned, candidates before it are
// always finished, so the answer is the one a sequential scan would give.
//
// The candidates are checked in chunks of chunk. The steps of a chunk's
// candidates up to its first success (all of them when none succeeds) are
// what a sequential scan runs; they are added to the step count when the
// chunk is done, and the next chunk starts only while the count is below
// the stage's limit (errStepBudget otherwise). Where a stage ends thus
// depends on the candidates alone, not on time or on the number of
// workers.
func (m *minimizer) firstTrace(ctx context.Context, n, chunk int, try attempt) (int, *record.Trace, error) {
	for lo := 0; lo < n; lo += chunk {
		if m.steps.Load() >= m.limit.Load() {
			return -1, nil, errStepBudget
		}
		f, tr, err := m.firstIn(ctx, lo, min(n, lo+chunk), try)
		if err != nil || f >= 0 {
			return f, tr, err
		}
	}
	return -1, nil, nil
}

// firstIn is firstTrace over the candidates lo..hi-1, in one go.
//
// A candidate whose check fails with an error ends the scan like a success
// does: the lowest index that succeeded or failed decides, so an error is
// returned exactly when a sequential scan would return it, whatever the
// number of workers. Only the schedules and steps of the candidates up to
// that index count, so the statistics do not depend on the workers either.
func (m *minimizer) firstIn(ctx context.Context, lo, hi int, try attempt) (int, *record.Trace, error) {
	var (
		next   atomic.Int64
		found  atomic.Int64
		traces = make([]*record.Trace, hi-lo)
		errs   = make([]error, hi-lo)
		steps  = make([]int64, hi-lo)
		scheds = make([]int64, hi-lo)
	)
	next.Store(int64(lo))
	found.Store(int64(hi))
	work := func(c *dpor.Checker) {
		t := m.tallies[c]
		for {
			i := next.Add(1) - 1
			if i >= int64(hi) || i > found.Load() {
				return
			}
			t.n, t.scan = 0, true
			tr, st, err := try(c, int(i))
			t.scan = false
			k := int(i) - lo
			traces[k], errs[k], steps[k], scheds[k] = tr, err, st, t.n
			if tr != nil || err != nil {
				for {
					cur := found.Load()
					if i >= cur || found.CompareAndSwap(cur, i) {
						break
					}
				}
			}
		}
	}
	var wg sync.WaitGroup
	for _, c := range m.checks[:min(len(m.checks), hi-lo)] {
		wg.Add(1)
		go func(c *dpor.Checker) { defer wg.Done(); work(c) }(c)
	}
	wg.Wait()
	f := int(found.Load())
	var sum, sched int64
	for k := range min(f, hi-1) - lo + 1 {
		sum += steps[k]
		sched += scheds[k]
	}
	m.steps.Add(sum)
	m.schedules.Add(sched)
	if f < hi {
		return f, traces[f-lo], errs[f-lo]
	}
	return -1, nil, nil
}

// tally counts the schedules one checker ran for the candidate its worker
// is checking (scan is set while firstIn runs one).
type tally struct {
	scan bool
	n    int64
}

// ran counts n schedules that c ran: toward its candidate in a scan (firstIn
// adds them up to the winning candidate), else toward the total at once.
func (m *minimizer) ran(c *dpor.Checker, n int) {
	if t := m.tallies[c]; t != nil && t.scan {
		t.n += int64(n)
		return
	}
	m.schedules.Add(int64(n))
}
