package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMinimizeCommand(t *testing.T) {
	in := fuzzRing(t)
	before, err := os.ReadFile(in)
	require.NoError(t, err)
	stats := filepath.Join(t.TempDir(), "s.json")
	code, out, errs := run(t, "minimize", in, "--budget", "30s", "--stats", stats, "-j", "2")
	require.Equal(t, 0, code, out+errs)
	assert.NotContains(t, out, "out of time")
	minPath := strings.TrimSuffix(in, ".trace") + ".min.trace"
	require.Contains(t, out, "│ "+minimize.StageDdminExternals+" ")
	require.True(t, strings.HasSuffix(out, in+": 7 deliveries and 6 externals → 3 deliveries and 4 externals (two-tokens)\nwrote "+minPath+"\n"+
		"optimal: no subsequence of its external events reproduces the violation with fewer deliveries plus externals (proved by the optimum pass)\n"), out)
	minOut := out

	after, err := os.ReadFile(in)
	require.NoError(t, err)
	require.Equal(t, before, after, "the input is never touched")

	code, out, errs = run(t, "replay", minPath, "--times", "3")
	require.Equal(t, 0, code, out+errs)

	var st struct {
		Stages []struct {
			Name       string  `json:"name"`
			Deliveries int     `json:"deliveries"`
			Externals  int     `json:"externals"`
			Schedules  int64   `json:"schedules"`
			Steps      int64   `json:"steps"`
			Seconds    float64 `json:"seconds"`
		} `json:"stages"`
		Steps   int64 `json:"steps"`
		Optimal bool  `json:"proved_optimal"`
		Final   struct {
			Name       string `json:"name"`
			Deliveries int    `json:"deliveries"`
			Externals  int    `json:"externals"`
		} `json:"final"`
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	require.Equal(t, minimize.StageInitial, st.Stages[0].Name)
	require.Equal(t, minimize.StageFinal, st.Final.Name)
	// fuzzRing's trace: 7 deliveries and 6 externals; two tokens need
	// the injected token to be passed (3 deliveries) after 4 externals.
	require.Equal(t, [2]int{7, 6}, [2]int{st.Stages[0].Deliveries, st.Stages[0].Externals}, "the input")
	require.Equal(t, [2]int{3, 4}, [2]int{st.Final.Deliveries, st.Final.Externals}, "the result")
	require.True(t, st.Optimal, "the optimum pass proved the result optimal over its external events")
	var steps int64
	for _, s := range st.Stages {
		steps += s.Steps
	}
	require.Positive(t, st.Steps)
	require.Equal(t, steps, st.Steps, "the total is the stages' sum")

	// The per-pass rows sum the stage rows up, in the table and in --stats.
	require.Contains(t, minOut, "│ PASS ")
	require.Contains(t, minOut, "│ "+minimize.StageSuffixSearch+" ")
	require.Contains(t, minOut, "│ "+minimize.StageBeam+" ")
	var ps struct {
		Passes []minimize.PassStats `json:"passes"`
	}
	require.NoError(t, json.Unmarshal(b, &ps))
	require.NotEmpty(t, ps.Passes)
	var passSteps int64
	removed := 0
	for _, p := range ps.Passes {
		passSteps += p.Steps
		removed += p.Removed
	}
	assert.Equal(t, steps, passSteps, "the passes' steps are the stages'")
	assert.Equal(t, 7+6-(3+4), removed, "the passes removed what the run removed")

	// --passes leaves passes out.
	code, out, errs = run(t, "minimize", in, "-o", filepath.Join(t.TempDir(), "less.trace"), "--passes", "-suffix-search,-beam")
	require.Equal(t, 0, code, out+errs)
	assert.NotContains(t, out, "│ "+minimize.StageSuffixSearch+" ")
	assert.NotContains(t, out, "│ "+minimize.StageBeam+" ")

	// Without the optimum pass nothing proves the result optimal, and the output says nothing of it.
	code, out, errs = run(t, "minimize", in, "-o", filepath.Join(t.TempDir(), "unproved.trace"), "--passes", "-optimum")
	require.Equal(t, 0, code, out+errs)
	assert.NotContains(t, out, "optimal:")
}

// TestMinimizeStepsBoundTheWork gives minimize a step budget of 1 step:
// the stages whose share is a fraction of it (0 steps) check nothing, and
// one-at-a-time (share: all of it) checks one chunk of candidates and
// stops, so the external events the full run removes stay.
func TestMinimizeStepsBoundTheWork(t *testing.T) {
	in := fuzzRing(t)
	out := filepath.Join(t.TempDir(), "out.trace")
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, stdout, errs := run(t, "minimize", in, "--steps", "1", "-o", out, "--stats", stats)
	require.Equal(t, 0, code, stdout+errs)
	require.True(t, strings.HasSuffix(stdout, in+": 7 deliveries and 6 externals → 3 deliveries and 6 externals (two-tokens)\nwrote "+out+"\n"), stdout)
	var st struct {
		Stages []struct {
			Name  string `json:"name"`
			Steps int64  `json:"steps"`
		} `json:"stages"`
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	for _, s := range st.Stages {
		if s.Name != minimize.StageOneAtATime {
			assert.Zero(t, s.Steps, s.Name)
		}
	}
}

// TestMinimizeSaysWhenOutOfTime gives minimize a wall-clock budget far
// below what raft-45's shipped trace needs (its step budget takes tens of
// core-seconds): the run writes the best trace it found, which replays, and
// says that the budget, not the step budget, ended it.
func TestMinimizeSaysWhenOutOfTime(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.trace")
	stats := filepath.Join(t.TempDir(), "s.json")
	code, stdout, errs := run(t, "minimize", "../examples/traces/raft-45.trace", "--budget", "300ms", "-o", out, "-j", "1", "--stats", stats)
	require.Equal(t, 0, code, stdout+errs)
	var st struct {
		OutOfTime bool `json:"out_of_time"`
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	assert.True(t, st.OutOfTime, "the stats say the budget ended the run")
	require.True(t, strings.HasSuffix(stdout, "\nwrote "+out+"\nout of time: the wall-clock budget (--budget 300ms) ended the run before its step budget; "+
		"the result depends on this machine's speed and load, and a larger --budget gives the step budget's result\n"), stdout)
	code, stdout, errs = run(t, "replay", out)
	require.Equal(t, 0, code, stdout+errs)
}

func TestMinimizeBadInput(t *testing.T) {
	in := fuzzRing(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"output is the input", []string{"minimize", in, "-o", in}, 2, "never overwrites"},
		{"unknown strategy", []string{"minimize", in, "--strategy", "magic"}, 2, "strategy"},
		{"missing file", []string{"minimize", filepath.Join(t.TempDir(), "nope.trace")}, 2, "nope.trace"},
		{"negative -j", []string{"minimize", in, "-j", "-1"}, 2, "-j"},
		{"negative --steps", []string{"minimize", in, "--steps", "-5"}, 2, "demi: --steps must be positive"},
		{"unknown pass", []string{"minimize", in, "--passes", "-bogus"}, 2, `demi: --passes: unknown pass "bogus"`},
		{"pass not left out", []string{"minimize", in, "--passes", "gather"}, 2, "demi: --passes: pass \"gather\": write -NAME to leave a pass out"},
		{"no file", []string{"minimize"}, 2, "demi: accepts 1 arg(s), received 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			require.Equal(t, tc.code, code, errs)
			require.Contains(t, errs, tc.msg)
			require.LessOrEqual(t, strings.Count(strings.TrimSpace(errs), "\n"), 0, "one line of error")
		})
	}
	garbage := filepath.Join(t.TempDir(), "garbage.trace")
	require.NoError(t, os.WriteFile(garbage, []byte("not a trace"), 0o644))
	code, _, errs := run(t, "minimize", garbage)
	require.Equal(t, 2, code, errs)
}

// TestMinimizeHelpPassesExampleParses takes the --passes examples the
// help shows ("--passes\n-NAME,-NAME") and checks that each names passes
// that exist: a deleted pass must leave the help too.
func TestMinimizeHelpPassesExampleParses(t *testing.T) {
	code, stdout, errs := run(t, "minimize", "--help")
	require.Equal(t, 0, code, errs)
	examples := regexp.MustCompile(`--passes\s+(-[a-z-]+(?:,-[a-z-]+)+)`).FindAllStringSubmatch(stdout, -1)
	require.NotEmpty(t, examples, "the help shows an example of --passes")
	for _, ex := range examples {
		_, err := minimize.ParsePasses(ex[1])
		assert.NoError(t, err, "the help's example --passes %s", ex[1])
	}
}
