package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
)

// step runs demi replay --step in scripted mode with script on stdin.
func step(t *testing.T, script string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	root := cli.New(catalog(), &out, &errb)
	root.SetIn(strings.NewReader(script))
	root.SetArgs(append([]string{"replay", "--step"}, args...))
	err := root.ExecuteContext(context.Background())
	code := 0
	if err != nil {
		var ee *cli.ExitError
		require.ErrorAs(t, err, &ee)
		code = ee.Code
		errb.WriteString(err.Error())
	}
	return code, out.String(), errb.String()
}

func TestStepScripted(t *testing.T) {
	code, out, errs := step(t, "next\nnext\nstate raft-2\nquit\n", "../examples/traces/raft-45.min.trace")
	require.Equal(t, 0, code, errs)
	screens := strings.Split(out, "\n> ")
	require.Len(t, screens, 5, "the first screen, then one per command (quit prints none)")
	assert.True(t, strings.HasPrefix(screens[2], "next\ndemi step · raft-45.min.trace · raft (raft-45) · seed 45 · fifo network\nstep 2 of 20 (21 events)"), screens[2])
	assert.Contains(t, screens[3], "\nraft-2\n  commitIndex: 0\n  leader: \"\"\n")
	assert.Equal(t, "quit\n", screens[4])
}

func TestStepBadCommandExitsTwo(t *testing.T) {
	code, _, errs := step(t, "next\nfly\n", "../examples/traces/raft-45.min.trace")
	assert.Equal(t, cli.ExitBadInput, code)
	assert.Equal(t, `line 2: unknown command "fly" (try help)`, errs)
}

func TestStepWithABugTurnedOffFollowsLoosely(t *testing.T) {
	code, out, errs := step(t, "violation\n", "../examples/traces/raft-45.min.trace", "--no-bug", "raft-45")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "» this execution reaches no violation\n")
	assert.Contains(t, out, "demi step · raft-45.min.trace · raft · seed 45 · fifo network\n")
}
