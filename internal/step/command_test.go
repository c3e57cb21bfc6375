package step

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Command
	}{
		{"next", Command{Op: OpNext, N: 1}},
		{"n 5", Command{Op: OpNext, N: 5}},
		{"  prev  ", Command{Op: OpPrev, N: 1}},
		{"goto 12", Command{Op: OpGoto, N: 12}},
		{"deliver #7", Command{Op: OpDeliver, N: 7}},
		{"x 3", Command{Op: OpDrop, N: 3}},
		{"break raft-2", Command{Op: OpBreak, Arg: "raft-2"}},
		{"search Vote{t1", Command{Op: OpSearch, Arg: "Vote{t1"}},
		{"/granted", Command{Op: OpSearch, Arg: "granted"}},
		{"state", Command{Op: OpState}},
		{"s raft-1", Command{Op: OpState, Arg: "raft-1"}},
		{"inject send raft-1 ClientCommand {\"Cmd\": 1}", Command{Op: OpInject, Arg: "send raft-1 ClientCommand {\"Cmd\": 1}"}},
		{"save", Command{Op: OpSave}},
		{"w out.trace", Command{Op: OpSave, Arg: "out.trace"}},
		{"save! out.trace", Command{Op: OpSave, Arg: "out.trace", Force: true}},
		{"q", Command{Op: OpQuit}},
		{"?", Command{Op: OpHelp}},
	} {
		got, err := Parse(tc.line)
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
}

func TestParseErrors(t *testing.T) {
	for line, want := range map[string]string{
		"":            "empty command (try help)",
		"jump":        `unknown command "jump" (try help)`,
		"next zero":   `next: "zero" is not a positive count`,
		"next 0":      `next: "0" is not a positive count`,
		"goto":        `goto: want K, got ""`,
		"goto -1":     `goto: want K, got "-1"`,
		"deliver x":   `deliver: want ID, got "x"`,
		"break":       "break: want ACTOR|TYPE|COND",
		"quit now":    "quit takes no argument",
		"save!":       "save!: want FILE (save! overwrites only a file you name)",
		"restart":     "restart: want ACTOR",
		"violation 3": "violation takes no argument",
	} {
		_, err := Parse(line)
		require.Error(t, err, line)
		assert.Equal(t, want, err.Error(), line)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	h := Help()
	require.Len(t, h, len(commandSpecs()))
	assert.Equal(t, "next       [N]              n → space  go N steps forward (default 1)", h[0], "the argument column fits ACTOR|TYPE|COND")
}
