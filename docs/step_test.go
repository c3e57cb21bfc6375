package docs_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/internal/step"
)

// stepScreenScript is what the README's step-through screen is made by:
// demi replay --step in scripted mode, commands on stdin.
const stepScreenScript = "goto 12\nbreak raft-3\n"

// stepScreen is the README's capture of the step-through screen: the last
// screen the scripted mode prints for stepScreenScript on the shipped
// minimized raft-45 trace (the terminal UI shows the same, in color, with
// the key list below).
func stepScreen(t *testing.T, s *session) string {
	var out, errb bytes.Buffer
	root := cli.New(s.catalog(), &out, &errb)
	root.SetIn(strings.NewReader(stepScreenScript))
	root.SetArgs([]string{"replay", "--step", "examples/traces/raft-45.min.trace"})
	require.NoError(t, root.ExecuteContext(context.Background()), errb.String())
	screens := strings.Split(out.String(), "\n> ")
	last := screens[len(screens)-1]
	_, screen, ok := strings.Cut(last, "\n")
	require.True(t, ok)
	return screen
}

// stepKeys is the README's list of the step-through commands and keys.
func stepKeys(*testing.T, *session) string {
	return step.HelpHeader() + "\n" + strings.Join(step.Help(), "\n") + "\n"
}
