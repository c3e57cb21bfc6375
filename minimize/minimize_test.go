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
	// initial, provenance, the driver's calls, the cleanup tier, final.
	require.Equal(t, []string{minimize.StageInitial, minimize.StageProvenance}, names[:2])
	require.Equal(t, minimize.StageFinal, names[len(names)-1])
	tiers := map[string]minimize.Tier{}
	for _, p := range minimize.Passes() {
		tiers[p.Name] = p.Tier
	}
	calls := map[string]int{}
	var steps int64
	cleanup := false
	for i, s := range res.Stages[1 : len(res.Stages)-1] {
		pass := minimize.PassOf(s.Name)
		tier, ok := tiers[pass]
		require.True(t, ok, "row %s is a call of a pass", s.Name)
		calls[pass]++
		if calls[pass] > 1 {
			require.Equal(t, minimize.RoundStage(pass, calls[pass]), s.Name)
		}
		steps += s.Steps
		if tier == minimize.Cleanup {
			cleanup = true
		} else {
			require.False(t, cleanup, "%s after the cleanup tier", s.Name)
		}
		prev := res.Stages[i]
		if (tier == minimize.Move || tier == minimize.Search) && s.Deliveries+s.Externals < prev.Deliveries+prev.Externals {
			next := res.Stages[i+2]
			require.Equal(t, minimize.Removal, tiers[minimize.PassOf(next.Name)], "a successful %s goes back to the removals", s.Name)
		}
	}
	// --stats' per-pass rows sum the stage rows up; the calls the beam's
	// forks made are counted apart (Fork), their steps within the beam's.
	var passSteps, forkSteps, beamSteps int64
	called, forkCalls, forkSuccesses := 0, 0, 0
	for _, p := range res.Passes {
		require.Equal(t, calls[p.Name], p.Calls, p.Name)
		passSteps += p.Steps
		called += min(p.Calls, 1)
		forkSteps, forkCalls, forkSuccesses = forkSteps+p.Fork.Steps, forkCalls+p.Fork.Calls, forkSuccesses+p.Fork.Successes
		if p.Name == minimize.StageBeam {
			beamSteps = p.Steps
		}
	}
	require.Equal(t, steps, passSteps)
	require.Equal(t, len(calls), called)
	require.Positive(t, forkSuccesses, "the beam's forks made their traces smaller")
	require.Positive(t, forkSteps)
	require.LessOrEqual(t, forkSteps, beamSteps)

	// A pass left out does not run.
	less, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: time.Minute, Skip: []string{minimize.StageDdminInternals, minimize.StageRetarget}})
	require.NoError(t, err)
	for _, s := range less.Stages {
		require.NotContains(t, []string{minimize.StageDdminInternals, minimize.StageRetarget}, minimize.PassOf(s.Name))
	}
	_, err = minimize.Run(context.Background(), sys, tr, minimize.Config{Skip: []string{"nope"}})
	require.ErrorContains(t, err, `unknown pass "nope"`)
	require.Equal(t, tr.Header.Deliveries, res.Stages[0].Deliveries)
	require.NotEmpty(t, res.Pace)
	for i := 1; i < len(res.Pace); i++ {
		require.GreaterOrEqual(t, res.Pace[i].Schedules, res.Pace[i-1].Schedules)
		require.GreaterOrEqual(t, res.Pace[i].Steps, res.Pace[i-1].Steps)
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
