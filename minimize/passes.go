package minimize

import (
	"context"
	"fmt"
	"strings"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
)

// Tier is the group a pass belongs to; the driver (driver.go) runs the
// removal tier to a fixpoint, then the moves, then the searches, going
// back to the removals after any success, and the cleanup tier last.
type Tier int

const (
	// Removal passes take events or contents away from the best trace.
	Removal Tier = iota
	// Move passes change the route (reorder, retarget, merge events),
	// each move followed by a descent that removes what it made useless.
	Move
	// Search passes look further: another start, more schedules per
	// check, exact or random searches for a cheaper suffix.
	Search
	// Cleanup passes run once, after the rest, and never make the trace
	// larger.
	Cleanup
)

func (t Tier) String() string {
	return [...]string{"removal", "move", "search", "cleanup"}[t]
}

// PassInfo describes one row of the pass table: what demi minimize --help,
// the package doc and docs/minimization.md list.
type PassInfo struct {
	Name string
	Tier Tier
	// Needs is the capability the system must provide for the pass to
	// apply ("" when every system has it).
	Needs string
	// Share is the share of the remaining step budget one call may use.
	Share float64
	// Once: the pass runs at most once per minimization.
	Once bool
	// Doc says in one sentence what the pass does.
	Doc string
}

// pass is a row of the pass table: its description, whether it applies
// to the best trace, and how it runs on the minimizer.
type pass struct {
	PassInfo
	applies func(m *minimizer, ctx context.Context) bool // nil: always
	run     func(m *minimizer, ctx context.Context) error
}

// passTable lists every pass, by tier, in the order that breaks ties
// between passes of the same measured gain: within a tier, the passes that
// cost least first. It is the one place that names the passes, their
// capabilities and their budgets.
var passTable = []pass{
	{PassInfo{StageProvenance, Removal, "", 0.05, true,
		"drops deliveries outside the violation's causal past"},
		nil, (*minimizer).provenance},
	{PassInfo{StageRelabel, Removal, "record.Symmetry", 0.01, false,
		"cuts the trace where its run breaks the target's invariant with other actors, relabelled onto the target's"},
		(*minimizer).relabels, (*minimizer).relabelPass},
	{PassInfo{StageDdminExternals, Removal, "", 0.4, false,
		"delta-debugs the external events: STSSched on the first call (the paper's STSSched column), then wildcards and type-fingerprint backtracks"},
		nil, (*minimizer).ddminExternalsPass},
	{PassInfo{StageDdminExternalsWild, Removal, "", 0.3, true,
		"delta-debugs the external events with every delivery a wildcard"},
		nil, (*minimizer).ddminExternalsWild},
	{PassInfo{StageClockClusters, Removal, "record.Clocked", 0.3, false,
		"removes whole clusters of deliveries that share a logical clock value"},
		nil, (*minimizer).clockClusters},
	{PassInfo{StageDdminInternals, Removal, "", 0.5, false,
		"delta-debugs the deliveries, with wildcards and type-fingerprint backtracks"},
		nil, (*minimizer).ddminInternals},
	{PassInfo{StageFifoInternals, Removal, "", 0.2, false,
		"leaves the last delivery of each sender-receiver queue pending, one at a time"},
		nil, (*minimizer).fifoInternals},
	{PassInfo{StageShrinkContents, Removal, "", 0.3, false,
		"shrinks the contents of external messages"},
		nil, (*minimizer).shrinkContents},
	{PassInfo{StageOneAtATime, Removal, "", 1, false,
		"tries removing every causal cone, delivery and external event once more"},
		nil, (*minimizer).oneAtATime},

	{PassInfo{StageGather, Move, "record.Symmetry", 0.1, false,
		"gives one actor's round a later external message of the type it handled, another member started after it"},
		(*minimizer).gathers, (*minimizer).gatherStage},
	{PassInfo{StageMerge, Move, "", 0.1, false,
		"merges an actor's later round of external handling into an earlier one; sends forwarded messages where they arrive"},
		(*minimizer).merges, (*minimizer).mergeStage},
	{PassInfo{StageRetarget, Move, "", 0.25, false,
		"addresses external events and timers to other actors, hands rounds over, restarts and repeats rounds"},
		nil, (*minimizer).retarget},
	{PassInfo{StageInject, Move, "record.System.Injections", 0.25, false,
		"inserts an external event the system's fuzz generators offer in place of a stretch of deliveries, anywhere in the trace"},
		(*minimizer).injects, (*minimizer).inject},
	{PassInfo{StageReorder, Move, "", 0.5, false,
		"swaps deliveries, moves and re-inserts external events, each move followed by a descent"},
		nil, (*minimizer).reorder},

	{PassInfo{StageEscalate, Search, "", 1, false,
		"runs the removals again with four times the schedules per check (type-matching backtracks first, then any)"},
		(*minimizer).escalates, (*minimizer).escalate},
	{PassInfo{StageNear, Search, "optimal.Forks", 0.1, false,
		"replaces a suffix by the cheapest one an exact search over forked runs finds"},
		(*minimizer).nears, (*minimizer).near},
	{PassInfo{StageShrinkSearch, Search, "optimal.Forks", 0.1, false,
		"drops a component of a group of identical external messages and finds the rest of the run by exact search"},
		(*minimizer).shrinkSearches, (*minimizer).shrinkSearch},
	{PassInfo{StageInsert, Search, "", 0.1, false,
		"replaces a suffix by the cheapest one a bounded exhaustive search finds, with inserted external events"},
		(*minimizer).insertsPass, (*minimizer).insert},
	{PassInfo{StageInternalsFirst, Search, "", 0.5, true,
		"a second start from the trace after provenance that removes internal events before external ones; its result joins the beam"},
		nil, (*minimizer).internalsFirstPass},
	{PassInfo{StageRetargetDisplaced, Search, "", 0.25, false,
		"the retarget moves on the beam's other trace"},
		(*minimizer).displacesPass, (*minimizer).retargetDisplaced},
	{PassInfo{StageShrinkSearchDisplaced, Search, "optimal.Forks", 0.1, false,
		"shrink-search on the beam's other trace, keeping the actors the violation names"},
		(*minimizer).shrinkDisplaces, (*minimizer).shrinkSearchDisplaced},
	{PassInfo{StageResample, Search, "", 0.05, false,
		"random runs of the trace's external events, shorter than it, that end in the target violation"},
		nil, (*minimizer).resample},

	{PassInfo{StageRelabelSameStep, Cleanup, "record.Symmetry", 0.05, false,
		"the relabel pass for violations that may break at the target's own step, as a move"},
		(*minimizer).relabelsSameStep, (*minimizer).relabelSameStep},
	{PassInfo{StageRoundForm, Cleanup, "record.Rounded", 0.05, false,
		"rewrites the schedule into lockstep rounds where it still reproduces the violation"},
		nil, (*minimizer).roundForm},
}

// Passes returns the pass table's rows, in table order.
func Passes() []PassInfo {
	out := make([]PassInfo, len(passTable))
	for i, p := range passTable {
		out[i] = p.PassInfo
	}
	return out
}

// PassOf returns the pass a stage row belongs to: its name without the
// call number ("ddmin-internals-3" is a call of "ddmin-internals").
func PassOf(stage string) string {
	if i := strings.LastIndexByte(stage, '-'); i > 0 {
		if _, err := fmt.Sscanf(stage[i+1:], "%d", new(int)); err == nil && !strings.ContainsAny(stage[i+1:], "+-") {
			return stage[:i]
		}
	}
	return stage
}

// ParsePasses parses a --passes list: comma-separated pass names, each
// prefixed by "-" to leave it out. It returns the passes left out, or an
// error naming an unknown pass.
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
		if !knownPass(name) {
			return nil, fmt.Errorf("unknown pass %q (demi minimize --help lists them)", name)
		}
		out[name] = true
	}
	return out, nil
}

func knownPass(name string) bool {
	for _, p := range passTable {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ---- applies and adapters: the table's entries that are not stage methods ----

func (m *minimizer) ddminExternalsPass(ctx context.Context) error {
	if m.calls[StageDdminExternals] == 1 || m.mode == dpor.STS {
		return m.ddminExternals(ctx)
	}
	return m.ddminExternalsTFB(ctx)
}

func (m *minimizer) reorder(ctx context.Context) error {
	return m.reorderWith(ctx, m.moves, true)
}

func (m *minimizer) gathers(context.Context) bool {
	return len(m.gatherStageEdits(m.snapshotBest().Events)) > 0
}

func (m *minimizer) merges(context.Context) bool {
	return len(mergeMoves(m.snapshotBest().Events)) > 0
}

func (m *minimizer) insertsPass(context.Context) bool { return m.inserts(m.snapshotBest()) }

func (m *minimizer) displacesPass(context.Context) bool { return m.displaces() }

// escalates reports whether the schedules per check can still grow.
func (m *minimizer) escalates(context.Context) bool { return m.escalation < maxEscalation }

// escalate multiplies the schedules per check by four and runs one sweep
// of the removals that use them, again while that finds nothing and the
// schedules can still grow.
func (m *minimizer) escalate(ctx context.Context) error {
	start := m.snapshotBest()
	for m.escalation < maxEscalation && m.snapshotBest() == start {
		m.escalation *= 4
		for _, run := range []func(context.Context) error{m.ddminExternalsTFB, m.clockClusters, m.ddminInternals, m.oneAtATime} {
			if err := run(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *minimizer) internalsFirstPass(ctx context.Context) error {
	return m.internalsFirst(m.afterProvenance)(ctx)
}

// relabels reports whether the relabel pass may apply: the system has a
// symmetry.
func (m *minimizer) relabels(context.Context) bool { return m.sys.Symmetry != nil }

func (m *minimizer) relabelsSameStep(context.Context) bool { return m.sys.Symmetry != nil }

func (m *minimizer) relabelPass(ctx context.Context) error {
	best := m.snapshotBest()
	cuts, _, steps, err := m.relabelCuts(ctx, best)
	if err != nil || len(cuts) == 0 {
		return err
	}
	m.steps.Add(steps)
	return m.relabel(ctx, best, cuts, nil)
}

func (m *minimizer) relabelSameStep(ctx context.Context) error {
	best := m.snapshotBest()
	_, same, steps, err := m.relabelCuts(ctx, best)
	if err != nil || len(same) == 0 {
		return err
	}
	m.steps.Add(steps)
	return m.relabel(ctx, best, nil, same)
}

// record.Rounded is the capability round-form needs; it is checked by the
// pass itself (roundform.go).
var _ = record.Trace{}
