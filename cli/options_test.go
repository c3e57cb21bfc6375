package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const raft45Min = "../examples/traces/raft-45.min.trace"

// With the duplicate-vote bug off the raft-45 trace still replays event for
// event (raft-3's second vote is delivered; it just no longer makes raft-2 a
// second leader), so replay runs to the end and reports no violation.
func TestReplayWithABugSwitchOffReportsNoViolation(t *testing.T) {
	for _, flags := range [][]string{{"--opt", "raft-45=false"}, {"--no-bug", "raft-45"}} {
		code, out, errs := run(t, append([]string{"replay", raft45Min}, flags...)...)
		assert.Equal(t, 1, code, flags)
		assert.Equal(t, "replaying with options changed from the trace's: raft-45=false\n"+
			"run 1: violation not reproduced (got no violation)\n"+
			raft45Min+": 0/1 replays reproduced ElectionSafety(raft-1,raft-2) after 21 of 21 events\n", out, flags)
		assert.Equal(t, "demi: violation reproduced 0 of 1 times\n", errs, flags)
	}
}

func TestReplayWithAnOptionThatKeepsTheBugReproduces(t *testing.T) {
	code, out, errs := run(t, "replay", raft45Min, "--opt", "unordered=true", "--bug", "raft-45")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "replaying with options changed from the trace's: unordered=true\n"+
		raft45Min+": 1/1 replays reproduced ElectionSafety(raft-1,raft-2) after 21 of 21 events\n", out)
}

func TestOptionFlagsRejectBadValuesNamingThem(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replay", raft45Min, "--opt", "raft-45=maybe"}, `demi: option raft-45: "maybe" is not a boolean` + "\n"},
		{[]string{"replay", raft45Min, "--opt", "members=many"}, `demi: option members: "many" is not an integer` + "\n"},
		{[]string{"replay", raft45Min, "--opt", "nosuch=1"}, `demi: system raft has no option "nosuch"` + "\n"},
		{[]string{"replay", raft45Min, "--opt", "members"}, `demi: --opt "members": want name=value` + "\n"},
		{[]string{"show", raft45Min, "--bug", "raft-99"}, `demi: system raft has no bug switch "raft-99" (known: raft-45, raft-46, raft-56, raft-58a, raft-58b, raft-42, raft-66)` + "\n"},
		{[]string{"minimize", raft45Min, "--no-bug", "raft-45", "--bug", "raft-45"}, "demi: --bug raft-45 and --no-bug raft-45 contradict each other\n"},
		{[]string{"show", raft45Min, "--rounds", "--opt", "members=4", "--opt", "members=5"}, "demi: --opt members=5 contradicts members=4 given before\n"},
		{[]string{"fuzz", "--system", "raft", "--opt", "raft-45=yes"}, `demi: option raft-45: "yes" is not a boolean` + "\n"},
	}
	for _, tc := range cases {
		code, out, errs := run(t, tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Empty(t, out, tc.args)
		assert.Equal(t, tc.want, errs, tc.args)
	}
}

func TestShowWithOptionsChanged(t *testing.T) {
	code, out, _ := run(t, "show", raft45Min)
	require.Equal(t, 0, code)
	assert.Regexp(t, `^\.\./examples/traces/raft-45\.min\.trace  system raft \(raft-45\)  seed 45  network fifo\n`, out)

	code, out, _ = run(t, "show", raft45Min, "--no-bug", "raft-45", "--opt", "unordered=true")
	require.Equal(t, 0, code)
	assert.Regexp(t, `^\.\./examples/traces/raft-45\.min\.trace  system raft \(unordered=true\)  seed 45  network unordered\n`, out)

	// With the bug off the trace replays to its end but reaches no
	// violation: the round view shows the run, and claims no violation.
	code, out, errs := run(t, "show", raft45Min, "--rounds", "--no-bug", "raft-45")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "\nround 1\n")
	assert.Contains(t, out, "    raft-3: term 0→1; votedFor ∅→raft-2\n")
	assert.NotContains(t, out, "violation:")
	assert.NotContains(t, out, "raft-2: leader ∅→raft-2")

	// With raft-58a on, a new leader sends itself a message, message IDs
	// shift and the run leaves the trace.
	code, _, errs = run(t, "show", raft45Min, "--rounds", "--bug", "raft-58a")
	assert.Equal(t, 1, code)
	assert.Equal(t, "demi: with the options changed, the run leaves the trace: trace does not replay: diverged at event 19: "+
		"expected deliver #26 raft-2→raft-3 RequestVote{t1 raft-2 last=0/t0}; got pending timer retry fires at raft-2: RetryVotes{Term:1} "+
		"(differs in to raft-3 ≠ raft-2, timer \"\" ≠ \"retry\", type RequestVote ≠ RetryVotes)\n", errs)
}

func TestMinimizeWithOptionsChanged(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.trace")
	code, stdout, errs := run(t, "minimize", raft45Min, "--opt", "members=5", "--budget", "5s", "-j", "1", "-o", out)
	require.Equal(t, 0, code, stdout+errs)
	tr, _, err := record.ReadFile(out, catalog())
	require.NoError(t, err)
	assert.Equal(t, "5", tr.Header.OptionMap()["members"])
	assert.Equal(t, "true", tr.Header.OptionMap()["raft-45"])
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", tr.Header.Violation.Fingerprint)

	code, _, errs = run(t, "minimize", raft45Min, "--no-bug", "raft-45", "--budget", "5s", "-o", filepath.Join(t.TempDir(), "x.trace"))
	assert.Equal(t, 1, code)
	assert.Equal(t, "demi: the trace does not reproduce its violation (no violation)\n", errs)
}
