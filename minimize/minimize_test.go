package minimize_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failing returns a tokenring trace that violates with bug on.
func failing(t *testing.T, opts record.Options, minDeliveries int) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, opts, record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: minDeliveries})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation found for %v", opts)
	return sys, tr
}

// TestMinimizeTokenring minimizes token ring traces with each strategy and
// checks the result against the size each reaches today (deliveries and
// externals, at most): a change that minimizes less fails here. The inputs
// are 39 deliveries and 33 externals (restore-token) and 13 deliveries and
// 9 externals (panic-on-lap on a ring of 6, which needs a whole lap of the
// token, so its deliveries stay).
func TestMinimizeTokenring(t *testing.T) {
	for _, tc := range []struct {
		opts     record.Options
		strategy string
		input    [2]int // deliveries, externals of the fuzzed trace
		atMost   [2]int // deliveries, externals of the result
	}{
		{record.Options{"restore-token": "true"}, "tfb", [2]int{39, 33}, [2]int{3, 4}},
		{record.Options{"panic-on-lap": "true", "size": "6"}, "tfb", [2]int{13, 9}, [2]int{13, 5}},
		{record.Options{"restore-token": "true"}, "sts", [2]int{39, 33}, [2]int{6, 7}},
		{record.Options{"restore-token": "true"}, "nodiverge", [2]int{39, 33}, [2]int{9, 6}},
	} {
		t.Run(tc.opts.String()+"/"+tc.strategy, func(t *testing.T) {
			sys, tr := failing(t, tc.opts, 12)
			require.Equal(t, tc.input, [2]int{tr.Header.Deliveries, tr.Header.Externals}, "the fuzzed input")
			res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 20 * time.Second, Strategy: tc.strategy, Workers: 2})
			require.NoError(t, err)
			for _, s := range res.Stages {
				t.Logf("%-16s %5d deliveries %3d externals %6d schedules %.3fs", s.Name, s.Deliveries, s.Externals, s.Schedules, s.Seconds)
			}
			require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
			rep, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			require.True(t, rep.Reproduced)
			require.LessOrEqual(t, res.Trace.Header.Deliveries, tc.atMost[0], "deliveries of the result")
			require.LessOrEqual(t, res.Trace.Header.Externals, tc.atMost[1], "externals of the result")
			require.Equal(t, [2]int{res.Trace.Header.Deliveries, res.Trace.Header.Externals},
				[2]int{res.Final.Deliveries, res.Final.Externals}, "the final row is the result")
		})
	}
}

func encode(t *testing.T, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

// sameWithWorkers checks that minimizing in with each of workers gives
// the result res (minimized with other workers) byte for byte, stage by
// stage in steps: the answer depends on the step budget, not on -j.
func sameWithWorkers(t *testing.T, sys *record.System, in *record.Trace, res *minimize.Result, workers ...int) {
	t.Helper()
	want := encode(t, res.Trace)
	for _, j := range workers {
		other, err := minimize.Run(context.Background(), sys, in, minimize.Config{Budget: time.Minute, Workers: j})
		require.NoError(t, err)
		assert.Equal(t, want, encode(t, other.Trace), "-j %d", j)
		require.Equal(t, len(res.Stages), len(other.Stages), "-j %d", j)
		for i, s := range res.Stages {
			assert.Equal(t, s.Steps, other.Stages[i].Steps, "-j %d, stage %s", j, s.Name)
		}
	}
}

func TestResultDoesNotDependOnWorkers(t *testing.T) {
	for _, opts := range []record.Options{
		{"restore-token": "true", "size": "5"},
		{"panic-on-lap": "true", "size": "6"},
	} {
		sys, tr := failing(t, opts, 12)
		var first []byte
		var stats []minimize.StageStats
		var pace []minimize.PacePoint
		for _, j := range []int{1, 2, 3} {
			res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute, Workers: j})
			require.NoError(t, err)
			b := encode(t, res.Trace)
			for i := range res.Stages {
				res.Stages[i].Seconds = 0
			}
			if first == nil {
				first, stats, pace = b, res.Stages, res.Pace
				continue
			}
			require.Equal(t, first, b, "-j %d gives another trace for %v", j, opts)
			// The statistics too: schedules and steps count the checks a
			// sequential scan runs, not speculative ones after its answer.
			require.Equal(t, stats, res.Stages, "-j %d gives other statistics for %v", j, opts)
			require.Equal(t, pace, res.Pace, "-j %d gives another pace for %v", j, opts)
		}
	}
}

func TestInterruptReturnsBestSoFar(t *testing.T) {
	sys, tr := failing(t, record.Options{"restore-token": "true"}, 12)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := minimize.Run(ctx, sys, tr, minimize.Config{Budget: time.Minute, Workers: 2, Progress: func(p minimize.Progress) {
		if p.Stage == minimize.StageClockClusters {
			cancel()
		}
	}})
	require.NoError(t, err)
	require.True(t, res.Interrupted)
	require.Equal(t, minimize.StageFinal, res.Final.Name)
	require.Less(t, res.Trace.Header.Deliveries+res.Trace.Header.Externals, tr.Header.Deliveries+tr.Header.Externals)
	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	require.True(t, rep.Reproduced, "the best-so-far trace replays")
	for _, s := range res.Stages {
		require.NotEqual(t, minimize.StageOneAtATime, s.Name, "no stage runs after the interrupt")
	}
}

func TestPaceAndStages(t *testing.T) {
	sys, tr := failing(t, record.Options{"restore-token": "true"}, 12)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute})
	require.NoError(t, err)
	names := []string{}
	for _, s := range res.Stages {
		names = append(names, s.Name)
	}
	// The first pass, then whole rounds 2, 3, ..., retarget, maybe
	// insert, maybe near, resample, then round-form, final.
	first := minimize.FirstPass()
	require.Equal(t, first, names[:len(first)])
	require.Equal(t, minimize.StageFinal, names[len(names)-1])
	require.Equal(t, minimize.StageRoundForm, names[len(names)-2], "the round-form pass ends the pipeline")
	rounds := names[len(first) : len(names)-2]
	require.Equal(t, minimize.StageResample, rounds[len(rounds)-1], "resample follows the late stages")
	rounds = rounds[:len(rounds)-1]
	if rounds[len(rounds)-1] == minimize.StageNear {
		rounds = rounds[:len(rounds)-1] // after insert, for runs that fork
	}
	if rounds[len(rounds)-1] == minimize.StageInsert {
		rounds = rounds[:len(rounds)-1] // after the last round, on short traces
	}
	require.Equal(t, minimize.StageRetarget, rounds[len(rounds)-1], "the retarget stage follows the rounds")
	rounds = rounds[:len(rounds)-1]
	per := minimize.RoundStages()
	require.NotEmpty(t, rounds, "at least one further round runs")
	// Whole rounds, each possibly followed by its reorder stage.
	for round := 2; len(rounds) > 0; round++ {
		require.GreaterOrEqual(t, len(rounds), len(per), "only whole rounds: %v", rounds)
		for i, stage := range per {
			require.Equal(t, minimize.RoundStage(stage, round), rounds[i])
		}
		rounds = rounds[len(per):]
		if len(rounds) > 0 && rounds[0] == minimize.RoundStage(minimize.StageReorder, round) {
			rounds = rounds[1:]
			if len(rounds) > 0 && rounds[0] == minimize.StageInternalsFirst {
				rounds = rounds[1:]
			}
		}
	}
	require.Equal(t, tr.Header.Deliveries, res.Stages[0].Deliveries)
	require.NotEmpty(t, res.Pace)
	for i := 1; i < len(res.Pace); i++ {
		require.GreaterOrEqual(t, res.Pace[i].Schedules, res.Pace[i-1].Schedules)
		require.LessOrEqual(t, res.Pace[i].Deliveries+res.Pace[i].Externals, res.Pace[i-1].Deliveries+res.Pace[i-1].Externals)
	}
	last := res.Pace[len(res.Pace)-1]
	require.Equal(t, res.Trace.Header.Deliveries, last.Deliveries)
}

func TestBadInput(t *testing.T) {
	sys, tr := failing(t, record.Options{"restore-token": "true"}, 12)
	_, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Strategy: "bogus"})
	require.ErrorContains(t, err, "unknown strategy")

	noViolation := *tr
	noViolation.Header.Violation = nil
	_, err = minimize.Run(context.Background(), sys, &noViolation, minimize.Config{})
	require.ErrorContains(t, err, "no violation")

	other := *tr
	v := *tr.Header.Violation
	v.Fingerprint = "something-else"
	other.Header.Violation = &v
	_, err = minimize.Run(context.Background(), sys, &other, minimize.Config{})
	require.ErrorIs(t, err, minimize.ErrNotReproduced)
}
