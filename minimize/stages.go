package minimize

import "fmt"

// Stage names (StageStats.Name, Progress.Stage): every name but StageInitial and StageFinal is a
// pass of the pass table (passes.go); a pass's later calls are named RoundStage(name, n).
const (
	// StageInitial replays the input exactly; it must reproduce its violation.
	StageInitial = "initial"

	StageProvenance         = "provenance"
	StageDdminExternals     = "ddmin-externals"
	StageDdminExternalsWild = "ddmin-externals-wild"
	StageClockClusters      = "clock-clusters"
	StageDdminInternals     = "ddmin-internals"
	StageFifoInternals      = "fifo-internals"
	StageShrinkContents     = "shrink-contents"
	StageOneAtATime         = "one-at-a-time"
	StageGather             = "gather"
	StageRetarget           = "retarget"
	StageInject             = "inject"
	StageAddEvent           = "add-event"
	StageSuffixSearch       = "suffix-search"
	StageLateStart          = "late-start"
	StageOptimum            = "optimum"
	StageShrinkSearch       = "shrink-search"
	StageBeam               = "beam"
	StageRoundForm          = "round-form"

	// StageFinal replays the result exactly before anything is written.
	StageFinal = "final"
)

// RoundStage names the stage row of a pass's call n (2, 3, ...): "ddmin-internals-2".
func RoundStage(stage string, round int) string { return fmt.Sprintf("%s-%d", stage, round) }
