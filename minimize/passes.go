package minimize

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/demi-project/demi/dpor"
)

// Tier is the group a pass belongs to: when the driver (driver.go) calls it.
type Tier int

const (
	Removal Tier = iota // take events or contents away from the best trace
	Move                // change the route, each move followed by a descent that removes what it made useless
	Search              // look further: other starts, exact searches from cuts of the best trace
	Cleanup             // run once, after the rest, and never make the trace larger
)

func (t Tier) String() string { return [...]string{"removal", "move", "search", "cleanup"}[t] }

// PassInfo describes one row of the pass table: what demi minimize --help,
// the package doc and docs/minimization.md list.
type PassInfo struct {
	Name  string
	Tier  Tier
	Needs string  // the capability the pass needs of the system ("" for none)
	Share float64 // the share of the remaining step budget one call may use
	Once  bool    // the pass runs at most once per minimization
	Whole bool    // a call is bounded by its share, not by the stall point (driver.go): its candidates pay late
	Doc   string  // what the pass does, in one sentence
}

// pass is a row of the pass table: its description, bounds, and how it runs.
type pass struct {
	PassInfo
	limits
	applies func(m *minimizer, ctx context.Context) bool // nil: always
	run     func(m *minimizer, ctx context.Context) error
}

// limits are a pass's own bounds on its work besides its share (0: none).
type limits struct {
	// The most units one-at-a-time pairs, members gather permutes, moves retarget and inject list.
	units, members, moves int
	// The most deliveries of a trace retarget reroutes, gather applies to or
	// suffix-search and late-start search; the schedules of a round-form check.
	deliveries, schedules int
	contents              int // the most contents per type retarget takes from record.System.InjectedContents
	// The searches: states per search in the first of rounds; identStates from the best trace unedited;
	// a cost makes them end like the best trace (goal-directed) and bounds what a continuation adds.
	states, rounds, identStates, cost int
	lastCuts                          int // the searches start at the plan's last lastCuts cuts only (0: every cut; late-start: its own actor's)
	lead                              int // the beam's kept result is offered early when the best is lead times its size
	tie                               int // 1: a search takes a route as costly as the best trace too, kept if its descent shrinks it
}

// passTable returns every pass, by tier, in the order that breaks ties of measured gain
// (docs/minimization.md, "Move order"): the one place that names the passes, their capabilities and their budgets.
func passTable() []pass {
	return []pass{
		{PassInfo{StageProvenance, Removal, "", 0.05, true, false,
			"drops deliveries outside the violation's causal past"},
			limits{}, nil, (*minimizer).provenance},
		{PassInfo{StageDdminExternals, Removal, "", 0.4, false, false,
			"delta-debugs the external events: STSSched on the first call (the paper's STSSched column), then wildcards and type-fingerprint backtracks"},
			limits{}, nil, (*minimizer).ddminExternalsPass},
		{PassInfo{StageDdminExternalsWild, Removal, "", 0.3, true, false,
			"delta-debugs the external events with every delivery a wildcard"},
			limits{}, nil, func(m *minimizer, ctx context.Context) error { return m.ddminPass(ctx, false, dpor.STS, 1, 0) }},
		{PassInfo{StageClockClusters, Removal, "record.Clocked", 0.3, false, false,
			"removes whole clusters of deliveries that share a logical clock value"},
			limits{}, nil, (*minimizer).clockClusters},
		{PassInfo{StageDdminInternals, Removal, "", 0.5, false, false,
			"delta-debugs the deliveries, with wildcards and type-fingerprint backtracks"},
			limits{}, nil, func(m *minimizer, ctx context.Context) error { return m.ddminPass(ctx, true, dpor.TFB, 0, 0) }},
		{PassInfo{StageFifoInternals, Removal, "", 0.2, false, false,
			"leaves the last delivery of each sender-receiver queue pending, one at a time"},
			limits{}, nil, (*minimizer).fifoInternals},
		{PassInfo{StageShrinkContents, Removal, "", 0.3, false, false,
			"shrinks the contents of external messages"},
			limits{}, nil, (*minimizer).shrinkContents},
		{PassInfo{StageOneAtATime, Removal, "", 1, false, false,
			"tries removing every causal cone, delivery and external event once more, and on short traces every pair of external events"},
			limits{units: 24}, nil, (*minimizer).oneAtATime},

		{PassInfo{StageGather, Move, "record.Symmetry", 0.1, false, false,
			"gives one actor's round a later external message of the type it handled, another member started after it"},
			limits{members: 6, deliveries: 64}, (*minimizer).gathers,
			func(m *minimizer, ctx context.Context) error { return m.reorderWith(ctx, m.gatherEdits) }},
		{PassInfo{StageRetarget, Move, "", 0.25, false, false,
			"reorders and reroutes deliveries, moves and re-inserts external events, gives them other contents the input had or the system's generators make, addresses them (alone, or with an earlier delivery to the old receiver left out), timers, rounds and messages to other actors, fires a timer of a message's receiver in place of the message, moves a message earlier with a later external event left out, moves an actor's external event earlier (under FIFO, flushing its links), runs a delivery as early as its causes allow (an actor started later misses what it sends), each move followed by a descent"},
			limits{moves: 4000, deliveries: 40, contents: 32}, nil, (*minimizer).retarget},
		{PassInfo{StageInject, Move, "record.System.Injections", 0.25, false, false,
			"inserts an external event the system's fuzz generators offer in place of a stretch of deliveries, anywhere in the trace"},
			limits{moves: 8000}, (*minimizer).injects, (*minimizer).inject},
		{PassInfo{StageAddEvent, Move, "record.System.Injections", 0.1, false, true,
			"inserts an external event the system's fuzz generators offer that sends no message (a crash-restart) before any event, each move followed by a descent"},
			limits{}, (*minimizer).injects, (*minimizer).addEvent},

		{PassInfo{StageBeam, Search, "", 0.1, false, true,
			"runs the removals and moves again on other starts, in a fork: the trace after provenance in two removal orders (internal events first, a configuration keeping the actors the violation names; the FIFO removal first, the removals alone); its result replaces the best trace when smaller, and the best trace it replaced, the beam's other member, is descended again in a fork, with the searches, when the run's own descent ends, as is then a start's result with fewer external events than the best trace, or fewer than the best trace had before the moves and one it lacks"},
			limits{lead: 3}, (*minimizer).hasStarts, (*minimizer).beam},
		{PassInfo{StageShrinkSearch, Search, "optimal.Forks", 0.1, false, true,
			"searches exactly for the cheapest continuation of cuts of the best trace, and of the prefix the old schedule still follows once a component is removed from a group of identical external messages"},
			limits{states: 1000, rounds: 3, identStates: 250}, (*minimizer).searches, (*minimizer).shrinkSearch},
		{PassInfo{StageSuffixSearch, Search, "optimal.Forks", 0.03, false, true,
			"searches exactly for the cheapest continuation of cuts of the best trace, ending like it, its later external events to apply or leave out"},
			limits{deliveries: 64, states: 16000, rounds: 1, cost: 6}, func(m *minimizer, ctx context.Context) bool { return m.shortForks(ctx, StageSuffixSearch) }, (*minimizer).suffixSearch},
		{PassInfo{StageLateStart, Search, "optimal.Forks", 0.1, false, true,
			"when the violation shows at an actor's start or restart, searches further for the cheapest continuation of the plan with that actor's start and every delivery to or from it left out, from the last two cuts it follows, ending like the best trace, the start applied again anywhere after the cut (if the actor restarts before, also from every cut of the plan without another actor's start and deliveries, the last restart moved to it); a route as costly as the best trace counts when the descent after it makes it smaller"},
			limits{deliveries: 64, states: 10000, rounds: 1, cost: 10, lastCuts: 2, tie: 1}, (*minimizer).lateStarts, (*minimizer).lateStart},
		{PassInfo{StageOptimum, Search, "optimal.Forks", 0.25, false, true,
			"searches exactly, as demi optimal --subsets does, for a schedule cheaper than the best trace of any subsequence of its external events"},
			limits{states: 100000}, (*minimizer).searches, (*minimizer).optimum},

		{PassInfo{StageRoundForm, Cleanup, "record.Rounded", 0.05, false, false,
			"rewrites the schedule into lockstep rounds where it still reproduces the violation"},
			limits{schedules: 8}, nil, (*minimizer).roundForm},
	}
}

// DefaultBudget is the wall-clock budget when Config.Budget is 0: a hard outer cap, three times what a run of
// a few thousand deliveries needs on an idle 2-core machine (Result.OutOfTime says when it ended a run).
const DefaultBudget = 3 * time.Minute

// finalReplayTimeout bounds the final replay, outside the step budget and Budget.
const finalReplayTimeout = time.Minute

// DefaultSteps is the work budget of a trace of fewer than 5,000 deliveries when Config.Steps is 0,
// in steps: one step is one event of one schedule a check runs (about 2-3 µs of one core).
const DefaultSteps = 20_000_000

// The budget: every constant that bounds the work of a run or of a way of
// checking several passes share (a pass's own bounds are its row's).
const (
	// The stall rule (stallPoint, driver.go); the floor is stallPerEvent
	// steps per event of the input, at least minStallFloor.
	stallRatio    = 1.0
	stallPerEvent = 300
	minStallFloor = 100_000
	minCallSteps  = 100_000
	// The defaults of Config.MaxSchedules and Config.TFBScale (budgetFor);
	// a long trace's step budget grows by longTraceSteps per delivery.
	defaultMaxSchedules = 16
	defaultTFBScale     = 100
	longTraceSteps      = 1000
	// The main tiers leave 1/cleanupShare of the step budget to cleanup.
	cleanupShare = 20
	// A long trace (longTrace deliveries or more) first searches windows of minWindow events or more, within windowShare.
	windowShare = 0.1
	longTrace   = 5000
	minWindow   = 32
	// A scan looks at the budget every scanChunk candidates, reorderChunk moves.
	scanChunk    = 16
	reorderChunk = 4
	// A move: one check of reorderSchedules schedules, then a descent of at most descentChecks checks (an insertion's
	// too), each of descentSchedules: nearly every removal a descent makes reproduces on the plan's own schedule,
	// while a removal that fails runs them all (one alone lost a route on a 5-member protocol: docs/minimization.md).
	reorderSchedules = 8
	descentChecks    = 400
	descentSchedules = 2
	// Inject's and add-event's moves go injectChunk at a time, each of injectSchedules schedules, Broad (another type).
	injectChunk     = 8
	injectSchedules = 32
	searchStepCost  = 10 // steps a forked step of the searches counts
	// Deeper values are neither renamed nor weighed (rename.go, shrink.go).
	maxValueDepth = 4
)

// limitsOf returns the limits of the pass named name.
func (m *minimizer) limitsOf(name string) limits { return passNamed(m.table, name).limits }

// Passes returns the pass table's rows, in table order.
func Passes() []PassInfo {
	var out []PassInfo
	for _, p := range passTable() {
		out = append(out, p.PassInfo)
	}
	return out
}

// PassOf returns the pass a stage row belongs to: its name without the
// call number ("ddmin-internals-3" is a call of "ddmin-internals").
func PassOf(stage string) string {
	if i := strings.LastIndexByte(stage, '-'); i > 0 && i+1 < len(stage) && strings.Trim(stage[i+1:], "0123456789") == "" {
		return stage[:i]
	}
	return stage
}

// ParsePasses parses a --passes list ("-NAME,-NAME"): the passes left out.
func ParsePasses(s string) (map[string]bool, error) {
	out := map[string]bool{}
	if s == "" {
		return out, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		name, ok := strings.CutPrefix(f, "-")
		if !ok {
			return nil, fmt.Errorf("pass %q: write -NAME to leave a pass out", f)
		}
		if passNamed(passTable(), name) == nil {
			return nil, fmt.Errorf("unknown pass %q (demi minimize --help lists them)", name)
		}
		out[name] = true
	}
	return out, nil
}
