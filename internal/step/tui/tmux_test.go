package tui_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
)

// childEnv makes the test binary act as demi (see TestMain), so that tmux
// runs the real command line in a real terminal without building it.
const childEnv = "DEMI_STEP_TUI_CHILD"

func catalog() *record.Catalog { return record.NewCatalog(raft.System(), tokenring.System()) }

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(cli.Run(context.Background(), catalog(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// terminal is a tmux session running `demi replay --step` on its own
// server socket.
type terminal struct {
	t    *testing.T
	sock string
	last string
}

// start opens the terminal UI on trace in a 120×60 tmux window. Without
// tmux the test is skipped, except in CI (CI set), where .ci/run installs
// it and its absence is a failure.
func start(t *testing.T, trace string) *terminal {
	t.Helper()
	return startSized(t, trace, 120, 60)
}

// startSized opens the terminal UI in a width×height window.
func startSized(t *testing.T, trace string, width, height int) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is missing in CI: .ci/run should install it")
		}
		t.Skip("tmux is not installed")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	// A short socket path: unix socket paths are limited to ~100 bytes.
	dir, err := os.MkdirTemp("", "tmx")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	tm := &terminal{t: t, sock: filepath.Join(dir, "s")}
	shell := fmt.Sprintf("env %s=1 TERM=xterm-256color %q replay --step %q", childEnv, exe, trace)
	tm.tmux("new-session", "-d", "-s", "demi", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	tm.tmux("set-option", "-t", "demi", "remain-on-exit", "on")
	tm.tmux("set-option", "-s", "escape-time", "0")
	tm.waitFor("step 0 of 20")
	return tm
}

func (tm *terminal) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	require.NoError(tm.t, err, "tmux %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// keys types keys (tmux key names: "n", "Enter", "Left").
func (tm *terminal) keys(keys ...string) {
	tm.t.Helper()
	tm.tmux(append([]string{"send-keys", "-t", "demi"}, keys...)...)
}

// screen is what the window shows now.
func (tm *terminal) screen() string {
	tm.t.Helper()
	tm.last = tm.tmux("capture-pane", "-p", "-t", "demi")
	return tm.last
}

// waitFor waits until every text is on the screen, and returns it. It
// fails after ten seconds (a generous bound on a loaded machine; a screen
// normally comes within milliseconds).
func (tm *terminal) waitFor(texts ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := tm.screen()
		missing := ""
		for _, text := range texts {
			if !strings.Contains(s, text) {
				missing = text
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q; it shows:\n%s", missing, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitGone waits until text is no longer on the screen.
func (tm *terminal) waitGone(text string) {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(tm.screen(), text) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen still shows %q:\n%s", text, tm.last)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitExit waits until the program has exited and returns its exit
// status as tmux reports it ("" when tmux did not record it, which
// happens when the pane's process is reaped in a race with its exit).
func (tm *terminal) waitExit() string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := strings.Fields(tm.tmux("display-message", "-p", "-t", "demi", "#{pane_dead} #{pane_dead_status}x"))
		if len(out) == 2 && out[0] == "1" {
			return strings.TrimSuffix(out[1], "x")
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("demi did not exit; the screen shows:\n%s", tm.screen())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// expect waits until the screen's lines starting with each prefix read as
// wanted (a screen is repainted line by line: a capture can catch it
// half-way), and fails showing the differences if they never do.
func (tm *terminal) expect(want map[string]string) string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := tm.screen()
		got := map[string]string{}
		for prefix := range want {
			got[prefix] = line(s, prefix)
		}
		if assert.ObjectsAreEqual(want, got) {
			return s
		}
		if time.Now().After(deadline) {
			assert.Equal(tm.t, want, got, "the screen:\n%s", s)
			tm.t.FailNow()
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// line returns the screen line that starts with prefix.
func line(screen, prefix string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}

// trace copies the shipped minimized raft-45 trace into a fresh directory
// (so that saves land there).
func trace(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../examples/traces/raft-45.min.trace")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "raft-45.min.trace")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

const helpLine = "n/→ next · p/← prev · g goto · b break · c continue · v violation · r rounds · / search · s state · d deliver · x drop"

func TestTerminalForwardAndBack(t *testing.T) {
	tm := start(t, trace(t))
	tm.expect(map[string]string{
		"demi step": "demi step · raft-45.min.trace · raft (raft-45) · seed 45 · fifo network",
		"n/→":       helpLine, // the help line is always visible
	})

	tm.keys("n")
	tm.waitFor("step 1 of 20")
	tm.keys("n", "Right")
	tm.expect(map[string]string{
		"step":   "step 3 of 20 (21 events) · prelude (before the first round)",
		"event":  "event     start raft-4",
		"raft-4": "raft-4  started by this step",
	})

	tm.keys("p")
	tm.expect(map[string]string{
		"step":  "step 2 of 20 (21 events) · prelude (before the first round)",
		"event": "event     start raft-3",
	})

	// Three steps forward from 13 ends on a delivery: its message shows.
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("13", "Enter")
	tm.waitFor("step 13 of 20")
	tm.keys("n", "n", "n")
	tm.expect(map[string]string{
		"step":    "step 16 of 20 (21 events) · round 1 · phase vote",
		"event":   "event     deliver #19 raft-4→raft-1 Vote{t1 granted}",
		"message": "message   delivered raft-4→raft-1: Vote{Term:1 Granted:true}",
		" *> ":    " *> #10 timer retry at raft-2 RetryVotes{Term:1}",
		"n/→":     helpLine,
	})

	tm.keys("Left")
	tm.expect(map[string]string{
		"step":  "step 15 of 20 (21 events) · round 1 · phase election",
		"event": "event     deliver #12 raft-2→raft-3 RequestVote{t1 raft-2 last=0/t0}",
	})
}

func TestTerminalBreakpointAndViolation(t *testing.T) {
	tm := start(t, trace(t))
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("13", "Enter")
	tm.waitFor("step 13 of 20")
	tm.keys("b")
	tm.waitFor("break on (actor, message type")
	tm.keys("raft-3", "Enter")
	tm.expect(map[string]string{
		"step":   "step 15 of 20 (21 events) · round 1 · phase election",
		"event":  "event     deliver #12 raft-2→raft-3 RequestVote{t1 raft-2 last=0/t0}",
		"»":      "» breakpoint raft-3: stopped at step 15",
		"raft-3": "raft-3  changed",
	})

	tm.keys("c")
	tm.expect(map[string]string{
		"step":  "step 18 of 20 (21 events) · round 1 · phase vote",
		"event": "event     deliver #21 raft-3→raft-2 Vote{t1 granted}",
	})

	tm.keys("v")
	tm.expect(map[string]string{
		"step":      "step 20 of 20 (21 events) · round 1 · phase vote",
		"invariant": "invariant VIOLATED: ElectionSafety(raft-1,raft-2): raft-1 and raft-2 were both leader in term 1",
		"»":         "» the invariant breaks at step 20",
	})

	tm.keys("r")
	tm.expect(map[string]string{
		"round view": "round view of steps 0-20 (r leaves it)",
		"  election": "  election   {raft-1,raft-2} → 3 × RequestVote",
	})
	tm.keys("r")
	tm.waitFor("pending  14")

	tm.keys("/")
	tm.waitFor("search:")
	tm.keys("g")
	tm.waitFor("search: g")
	tm.keys("Escape")
	tm.waitGone("search:")

	tm.keys("?")
	tm.expect(map[string]string{
		"violation ": "violation                   v          run to the step where the invariant breaks",
	})

	tm.keys("q")
	assert.Contains(t, []string{"0", ""}, tm.waitExit(), "demi exits with status 0 on quit")
}

func TestTerminalWhatIfSaved(t *testing.T) {
	path := trace(t)
	tm := start(t, path)
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("16", "Enter")
	tm.waitFor("step 16 of 20")
	tm.keys("d")
	tm.waitFor("what-if: deliver now pending message #11")
	tm.keys("Enter")
	s := tm.expect(map[string]string{
		"step":  "step 17 of 21 (22 events) · round 1 · phase election",
		"event": "event     deliver #11 raft-2→raft-1 RequestVote{t1 raft-2 last=0/t0}",
	})
	assert.True(t, strings.HasPrefix(line(s, "what-if"), "what-if   1. violation still reached, at step 21 ← deliver #11"), line(s, "what-if"))

	tm.keys("w")
	want := filepath.Join(filepath.Dir(path), "raft-45.whatif.trace")
	tm.waitFor("save the execution as: " + want)
	tm.keys("Enter")
	tm.waitFor("» saved 22 events to " + want)

	// Saving again over it asks first; n keeps the file.
	tm.keys("w")
	tm.waitFor("save the execution as: ")
	tm.keys("C-u", want, "Enter")
	tm.waitFor("exists: overwrite it? (y/n)")
	tm.keys("n")
	tm.waitFor("not saved")

	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), catalog(), []string{"replay", want}, &out, &errb)
	assert.Equal(t, 0, code, errb.String())
	assert.Equal(t, want+": 1/1 replays reproduced ElectionSafety(raft-1,raft-2) after 22 of 22 events\n", out.String())
	minimized := filepath.Join(filepath.Dir(path), "m.trace")
	code = cli.Run(context.Background(), catalog(), []string{"minimize", want, "--strategy", "sts", "-o", minimized}, &out, &errb)
	assert.Equal(t, 0, code, errb.String())
	tr, _, err := record.ReadFile(minimized, catalog())
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", tr.Header.Violation.Fingerprint)
}

// TestTerminalTypingReplacesTheSuggestion: a prompt's suggested answer is
// shown in the empty input; Enter takes it, typing replaces it (d
// suggests #11; typing 13 delivers #13, not #1113).
func TestTerminalTypingReplacesTheSuggestion(t *testing.T) {
	tm := start(t, trace(t))
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("16", "Enter")
	tm.waitFor("step 16 of 20")
	tm.keys("d")
	tm.waitFor("what-if: deliver now pending message #11")
	tm.keys("13", "Enter")
	tm.expect(map[string]string{
		"event": "event     deliver #13 raft-2→raft-4 RequestVote{t1 raft-2 last=0/t0}",
	})
}

// TestTerminalFits80x24: at 80×24 the header wraps rather than cutting the
// violation, and the actors come first, before the pending messages; a
// dropped message is marked, not deliverable.
func TestTerminalFits80x24(t *testing.T) {
	tm := startSized(t, trace(t), 80, 24)
	tm.keys("v")
	s := tm.waitFor("step 20 of 20", "raft-1 and raft-2 were both", "leader in term 1", "actors", "raft-2  changed", "raft-4",
		"n/p step · g goto · b break · v violation · d/x deliver/drop · ? keys · q quit")
	assert.NotContains(t, s, "pending", "the actors come first")
	for _, l := range strings.Split(s, "\n") {
		assert.LessOrEqual(t, len([]rune(strings.TrimRight(l, " "))), 80, l)
	}
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("15", "Enter")
	tm.waitFor("step 15 of 20")
	tm.keys("x")
	tm.waitFor("what-if: never deliver pending message #")
	tm.keys("19", "Enter")
	tm.waitFor("what-if   1. violation no longer reached")
	tm.keys("PageDown", "PageDown")
	tm.waitFor("#19 raft-4→raft-1 Vote{t1 granted} (dropped by a what-if: never delivered)")
}

// TestTerminalAt160x50 shows everything at once: the actors, the pending
// messages and the whole key list.
func TestTerminalAt160x50(t *testing.T) {
	tm := startSized(t, trace(t), 160, 50)
	tm.keys("g")
	tm.waitFor("go to step:")
	tm.keys("15", "Enter")
	tm.waitFor("step 15 of 20", "actors", "raft-4", "pending  11", "#21 raft-3→raft-2 Vote{t1 granted}", "u undo")
}
