package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyTrace copies a shipped trace into a fresh directory.
func copyTrace(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../examples/traces/" + name)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestCheckExitsZeroWhenTheBugIsOffAndOneWhenOn(t *testing.T) {
	in := copyTrace(t, "raft-45.min.trace")
	before, err := os.ReadFile(in)
	require.NoError(t, err)

	code, out, errs := run(t, "check", in, "--no-bug", "raft-45", "--schedules", "100")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, "checking with options changed from the trace's: raft-45=false\n"+
		in+": exact replay does not reproduce ElectionSafety(raft-1,raft-2) (got no violation)\n"+
		"no schedule of the 100 tried (the budget) reaches ElectionSafety(raft-1,raft-2): the violation is no longer reachable from this trace\n", out)
	assert.Empty(t, errs)

	code, out, errs = run(t, "check", in)
	assert.Equal(t, 1, code)
	assert.Equal(t, in+": exact replay reproduces ElectionSafety(raft-1,raft-2) after 21 of 21 events\n"+
		"the trace itself reaches it; nothing written\n", out)
	assert.Equal(t, "demi: the violation ElectionSafety(raft-1,raft-2) is still reachable\n", errs)

	entries, err := os.ReadDir(filepath.Dir(in))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written")
	after, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the input is untouched")
}

func TestCheckWritesTheScheduleThatStillReachesTheViolation(t *testing.T) {
	in := copyTrace(t, "raft-45.min.trace")
	dir := filepath.Dir(in)
	for i, want := range []string{"raft-45.min.check.trace", "raft-45.min.check-2.trace"} {
		code, out, errs := run(t, "check", in, "--bug", "raft-58a")
		assert.Equal(t, 1, code, i)
		assert.Equal(t, "checking with options changed from the trace's: raft-58a=true\n"+
			in+": exact replay diverged at event 19: expected deliver #26 raft-2→raft-3 RequestVote{t1 raft-2 last=0/t0}; "+
			"got pending timer retry fires at raft-2: RetryVotes{Term:1} (differs in to raft-3 ≠ raft-2, timer \"\" ≠ \"retry\", type RequestVote ≠ RetryVotes)\n"+
			"schedule 1 of at most 2000 reaches ElectionSafety(raft-1,raft-2) after 16 deliveries and 8 externals\n"+
			"wrote "+filepath.Join(dir, want)+"\n", out, i)
		assert.Equal(t, "demi: the violation ElectionSafety(raft-1,raft-2) is still reachable\n", errs)
	}
	code, out, errs := run(t, "replay", filepath.Join(dir, "raft-45.min.check.trace"))
	require.Equal(t, 0, code, out+errs)
	tr, _, err := record.ReadFile(filepath.Join(dir, "raft-45.min.check.trace"), catalog())
	require.NoError(t, err)
	assert.Equal(t, "true", tr.Header.OptionMap()["raft-58a"])

	out2 := filepath.Join(dir, "mine.trace")
	code, _, _ = run(t, "check", in, "-o", out2)
	assert.Equal(t, 1, code)
	assert.FileExists(t, out2, "-o writes even an exact reproduction")
}

func TestCheckRejectsBadInput(t *testing.T) {
	in := copyTrace(t, "raft-45.min.trace")
	garbage := filepath.Join(t.TempDir(), "garbage.trace")
	require.NoError(t, os.WriteFile(garbage, []byte("not a trace"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", in, "-o", in}, "demi: -o " + in + " is the input file; check never overwrites its input\n"},
		{[]string{"check", in, "--opt", "raft-45=perhaps"}, `demi: option raft-45: "perhaps" is not a boolean` + "\n"},
		{[]string{"check", in, "--schedules", "0"}, "demi: --schedules must be at least 1\n"},
		{[]string{"check", in, "--budget", "0s"}, "demi: --budget must be positive\n"},
		{[]string{"check", in, "-o", filepath.Join(t.TempDir(), "no", "such", "dir.trace")}, ""},
		{[]string{"check", garbage}, ""},
		{[]string{"check", filepath.Join(t.TempDir(), "missing.trace")}, ""},
	}
	for _, tc := range cases {
		code, out, errs := run(t, tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Empty(t, out, tc.args)
		if tc.want != "" {
			assert.Equal(t, tc.want, errs, tc.args)
		} else {
			assert.Regexp(t, `^demi: (open .*missing\.trace: no such file or directory|.*garbage\.trace: bad trace header: not a demi trace .*|-o .*dir\.trace: directory .*such does not exist)\n$`, errs)
		}
	}
}

func TestCheckWritesAnExactReproductionUnderChangedOptions(t *testing.T) {
	in := copyTrace(t, "raft-45.min.trace")
	code, out, _ := run(t, "check", in, "--opt", "unordered=true")
	assert.Equal(t, 1, code)
	written := filepath.Join(filepath.Dir(in), "raft-45.min.check.trace")
	assert.Equal(t, "checking with options changed from the trace's: unordered=true\n"+
		in+": exact replay reproduces ElectionSafety(raft-1,raft-2) after 21 of 21 events\n"+
		"wrote "+written+"\n", out)
	tr, _, err := record.ReadFile(written, catalog())
	require.NoError(t, err)
	assert.Equal(t, "unordered", tr.Header.Network)
	code, out, errs := run(t, "replay", written)
	assert.Equal(t, 0, code, out+errs)
}
