package minimize

import "fmt"

// Stage names: the rows of demi minimize's table, StageStats.Name and
// Progress.Stage. Every name but StageInitial and StageFinal is a pass of
// the pass table (passes.go); a pass's later calls are named
// RoundStage(name, n). A test checks that the table, these constants and
// the package doc agree.
const (
	// StageInitial replays the input exactly; it must reproduce its violation.
	StageInitial = "initial"
	// StageProvenance drops deliveries outside the violation's causal past.
	StageProvenance = "provenance"
	// StageDdminExternals delta-debugs the external events, each
	// subsequence checked with the single STSSched schedule (the paper's
	// STSSched column; strategy "sts" stops after it).
	StageDdminExternals = "ddmin-externals"
	// StageDdminExternalsWild delta-debugs the external events again with
	// every delivery a wildcard.
	StageDdminExternalsWild = "ddmin-externals-wild"
	// StageClockClusters removes whole clusters of deliveries that share a
	// logical clock value, with the timers that advance the clock.
	StageClockClusters = "clock-clusters"
	// StageDdminInternals delta-debugs the deliveries, with wildcards and
	// type-fingerprint backtracks.
	StageDdminInternals = "ddmin-internals"
	// StageFifoInternals tries leaving the last delivery of each FIFO queue
	// pending, one at a time.
	StageFifoInternals = "fifo-internals"
	// StageShrinkContents shrinks the contents of external messages.
	StageShrinkContents = "shrink-contents"
	// StageOneAtATime tries removing every remaining causal cone,
	// delivery and external event once more.
	StageOneAtATime = "one-at-a-time"
	// StageInternalsFirst is a second first pass from the trace after
	// provenance that removes internal events before external ones; its
	// result replaces the best trace when smaller (portfolio.go). It runs
	// once, after the first reorder stage.
	StageInternalsFirst = "internals-first"
	// StageReorder tries moves that reorder rather than remove (swaps,
	// external events moved or re-inserted, contents shrunk), each
	// followed by a descent; it runs at the end of a round that found
	// nothing, once per trace, as RoundStage(StageReorder, n).
	StageReorder = "reorder"
	// StageRelabel relabels the best trace's prefix by a symmetry of the
	// system's actors when its run breaks the target's invariant with
	// other actors first, cut there (relabel.go); it runs at the start of
	// every round, as RoundStage(StageRelabel, n), once after the rounds
	// and once more before round-form, whenever the best trace changed
	// and has such a violation.
	StageRelabel = "relabel"
	// StageShrinkSearch runs once after the rounds, on an allowance of its
	// own: a group of identical external messages loses a component, the
	// edited schedule is kept as far as it still goes and an exact search
	// finds the rest; the removal stages then re-minimize
	// (shrinksearch.go).
	StageShrinkSearch = "shrink-search"
	// StageResample runs once after the late stages, on an allowance of
	// its own: random runs of the best trace's external events, shorter
	// than it, whose violation (relabelled by a symmetry if needed) is the
	// target restart the removals; shrink-search runs again after a find,
	// as RoundStage(StageShrinkSearch, 2) (resample.go).
	StageResample = "resample"
	// StageShrinkSearchDisplaced runs once after shrink-search, on what
	// remains of the step budget (at least shrink-search's allowance),
	// when internals-first replaced a trace whose configuration names
	// every actor the violation names by one that leaves one out:
	// shrink-search's searches on the replaced trace, with the group
	// edits that keep the named actors (shrinkdisplaced.go).
	StageShrinkSearchDisplaced = "shrink-search-displaced"
	// StageGather runs after the rounds, on an allowance of its own, the
	// first of the late stages (late.go; again as RoundStage(StageGather,
	// n), last in their later passes): an actor's round takes a later
	// external message of the type it handled, and another member starts
	// after the round's first one, the plan relabelled by every symmetry
	// of the members (gather.go); each move is followed by a descent.
	StageGather = "gather"
	// StageRetarget runs after gather, on an allowance of its own, the
	// second of the late stages (late.go; again as
	// RoundStage(StageRetarget, n), with its own moves only): reorder
	// moves led by external events addressed to another actor and ended
	// by timers fired at another actor (retarget.go), alone or with the
	// external messages handled after them (handover.go), and timer
	// rounds repeated later by another actor (repeat.go).
	StageRetarget = "retarget"
	// StageRetargetDisplaced runs once after retarget, on an allowance of
	// its own, when internals-first's result replaced the best trace: the
	// retarget stage's moves on the trace it replaced, kept when smaller
	// than the best trace (displaced.go).
	StageRetargetDisplaced = "retarget-displaced"
	// StageMerge runs after retarget, on an allowance of its own, and
	// again as RoundStage(StageMerge, n) in the late stages' later passes
	// (late.go): an external message forwarded along a chain is sent to
	// the chain's last receiver where it arrived (sink.go), an actor's
	// later round of external handling is merged into an earlier one,
	// the later round's timer cone left out (merge.go), a round that
	// handles nothing is left out with what it made its receiver refuse
	// (mergecand.go), and a round is handed to an actor restarted just
	// before it, the restart moved past it (mergecarry.go); each move is
	// followed by a descent, and one that helps by shrink-contents and
	// the removal stages.
	StageMerge = "merge"
	// StageInsert replaces a suffix of the best trace by a cheaper one
	// that an exhaustive search finds, inserting deliveries and external
	// events the trace lacks (insert.go); it runs after retarget, on
	// short traces, and again as RoundStage(StageInsert, n) in the late
	// stages' later passes (late.go).
	StageInsert = "insert"
	// StageInject inserts an external event the system's generators offer
	// (record.System.Injections) where the best trace had a stretch of
	// deliveries, leaving them out (inject.go).
	StageInject = "inject"
	// StageNear replaces a suffix of the best trace by the cheapest one an
	// exact search over forked runs finds (near.go); it runs after
	// insert, for systems whose runs fork, and again as
	// RoundStage(StageNear, n) in the late stages' later passes (late.go).
	StageNear = "near"
	// StageRoundForm rewrites the schedule into lockstep rounds where it
	// still reproduces the violation (roundform.go); it runs once, after the
	// last round, for systems whose messages carry a round.
	StageRoundForm = "round-form"
	// StageEscalate runs the removals again with four times the
	// schedules per check, up to 64 times the first.
	StageEscalate = "escalate"
	// StageRelabelSameStep is the relabel pass's last look, for
	// violations that may break at the target's own step (relabel.go).
	StageRelabelSameStep = "relabel-same-step"
	// StageFinal replays the result exactly; it must reproduce the
	// violation before anything is written.
	StageFinal = "final"
)

// RoundStage is the name of the stage row of a pass's call n (2, 3, ...):
// "ddmin-internals-2".
func RoundStage(stage string, round int) string { return fmt.Sprintf("%s-%d", stage, round) }
