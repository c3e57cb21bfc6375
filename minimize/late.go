package minimize

import (
	"context"

	"github.com/demi-project/demi/record"
)

// The late stages (gather, retarget, merge, insert, near) run once each
// after the rounds, in that order (with retarget-displaced after retarget
// when internals-first replaced a best trace, displaced.go). Each changes the route of the best trace in its own way
// (moves and their descents; a suffix replaced by the cheapest one a
// bounded search finds, inserted events included; a suffix replaced by an
// exact search over forked runs), and what one of them finds is often
// where another one applies again: on raft-58a unseen seed 7139, insert
// finds nothing on retarget's 53 deliveries (E:11), near trims one
// delivery, and from near's 52 deliveries insert finds 37 (E:12) (a
// suffix with an inserted crash-restart of the member that rejected the
// leader's appends), from which retarget's moves reach 30 (E:14).
//
// So after the first pass the late stages run again, insert, near, then
// retarget, merge and gather (the stages that search a suffix first: they
// are cheaper), as "insert-2", "near-2", "retarget-2", "merge-2",
// "gather-2", ... for at most maxLatePasses passes
// in all. A stage is skipped when the best trace is the one it left (it
// ran on it or produced it: running it again would find what it found),
// and a pass in which no stage runs ends them. Each stage has its own
// allowance, as in the first pass, and the later passes together may
// start stages while they have used less than Config.Steps/lateShare
// steps. Like every stage, they count steps, not time, and the result does
// not depend on Workers.

// maxLatePasses bounds the passes over the late stages, the first
// included.
const maxLatePasses = 3

// lateShare: the late stages' passes after the first may start stages
// while they have used less than Config.Steps/lateShare steps.
const lateShare = 2

// lateStage is one of the late stages.
type lateStage struct {
	name    string
	share   int64
	applies func(*record.Trace) bool
	run     func(context.Context) error
	// again, when set, runs instead of run in the passes after the first.
	again func(context.Context) error
	left  *record.Trace // the best trace when it last ended
}

// lateStages runs the late stages: a first pass in the order gather,
// retarget, retarget-displaced (displaced.go, when internals-first
// replaced a best trace), merge, insert, near, then passes in the order
// insert, near, retarget (its own moves only), merge, gather while a
// stage has a best trace it has not left.
func (m *minimizer) lateStages(ctx context.Context) error {
	always := func(*record.Trace) bool { return true }
	// In the later passes retarget runs its own moves only: the reorder
	// moves belong to the rounds.
	retarget := &lateStage{name: StageRetarget, share: retargetShare, applies: always, run: m.retarget,
		again: func(ctx context.Context) error { return m.retargetWith(ctx, false) }}
	insert := &lateStage{name: StageInsert, share: insertShare, applies: m.inserts, run: m.insert}
	near := &lateStage{name: StageNear, share: nearShare, applies: func(*record.Trace) bool { return m.nears(ctx) }, run: m.near}
	// displaced.go: the trace internals-first displaced, retargeted once.
	displaced := &lateStage{name: StageRetargetDisplaced, share: retargetShare, applies: func(*record.Trace) bool { return m.displaces() }, run: m.retargetDisplaced}
	merge := &lateStage{name: StageMerge, share: mergeShare, applies: func(t *record.Trace) bool { return len(mergeMoves(t.Events)) > 0 }, run: m.mergeStage}             // merge.go
	gather := &lateStage{name: StageGather, share: gatherShare, applies: func(t *record.Trace) bool { return len(m.gatherStageEdits(t.Events)) > 0 }, run: m.gatherStage} // gather.go, standin.go
	return m.runLate(ctx, []*lateStage{gather, retarget, displaced, merge, insert, near}, []*lateStage{insert, near, retarget, merge, gather})
}

// runLate runs the stages of first once each, in order, then passes over
// later (the same stages in another order; a stage's again, when set,
// runs instead of its run in those passes), for at most maxLatePasses passes in
// all: a stage runs when it applies and the best trace is not the one it
// left, while the later passes have used less than
// Config.Steps/lateShare steps. A pass in which no stage ran is the last.
func (m *minimizer) runLate(ctx context.Context, first, later []*lateStage) error {
	runOne := func(s *lateStage, name string, run func(context.Context) error) error {
		if !s.applies(m.snapshotBest()) {
			return nil
		}
		err := m.runStage(ctx, name, m.steps.Load()+m.cfg.Steps/s.share, run)
		s.left = m.snapshotBest()
		return err
	}
	for _, s := range first {
		if err := runOne(s, s.name, s.run); err != nil {
			return err
		}
	}
	end := m.steps.Load() + m.cfg.Steps/lateShare
	for pass := 2; pass <= maxLatePasses; pass++ {
		ran := false
		for _, s := range later {
			if best := m.snapshotBest(); s.left == best || !s.applies(best) {
				continue
			}
			if m.steps.Load() >= end {
				return nil
			}
			ran = true
			run := s.run
			if s.again != nil {
				run = s.again
			}
			if err := runOne(s, RoundStage(s.name, pass), run); err != nil {
				return err
			}
		}
		if !ran {
			return nil
		}
	}
	return nil
}
