package step

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func catalog() *record.Catalog { return record.NewCatalog(raft.System(), tokenring.System()) }

// walk opens a trace file for a walk.
func walk(t *testing.T, path string) *Walk {
	t.Helper()
	tr, sys, err := record.ReadFile(path, catalog())
	require.NoError(t, err)
	return walkTrace(t, sys, path, tr)
}

func walkTrace(t *testing.T, sys *record.System, path string, tr *record.Trace) *Walk {
	t.Helper()
	s, err := Open(context.Background(), sys, tr, false)
	require.NoError(t, err)
	w, err := NewWalk(context.Background(), sys, path, s)
	require.NoError(t, err)
	return w
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
}

// runScript runs testdata/name.script ({{dir}} is a temporary directory)
// and returns the output with the directory written back as {{dir}}.
func runScript(t *testing.T, w *Walk, name, dir string) string {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", name+".script"))
	require.NoError(t, err)
	var out bytes.Buffer
	err = Script(context.Background(), w, strings.NewReader(strings.ReplaceAll(string(script), "{{dir}}", dir)), &out)
	require.NoError(t, err)
	return strings.ReplaceAll(out.String(), dir, "{{dir}}")
}

func TestScriptRaft45(t *testing.T) {
	dir := t.TempDir()
	w := walk(t, "../../examples/traces/raft-45.min.trace")
	out := runScript(t, w, "raft45", dir)
	golden(t, "raft45.golden", out)

	// The what-if saved by the script is a trace demi replay accepts.
	saved := filepath.Join(dir, "raft-45.whatif.trace")
	tr, sys, err := record.ReadFile(saved, catalog())
	require.NoError(t, err)
	require.NotNil(t, tr.Header.Violation)
	res, err := replay.Run(context.Background(), sys, tr)
	require.NoError(t, err)
	assert.True(t, res.Reproduced)
	assert.Nil(t, res.Divergence)
	assert.Equal(t, len(tr.Events), res.Events)
}

func TestScriptTokenring(t *testing.T) {
	w := walk(t, "testdata/tokenring.min.trace")
	golden(t, "tokenring.golden", runScript(t, w, "tokenring", t.TempDir()))
}

func TestScriptStopsAtABadCommand(t *testing.T) {
	for script, want := range map[string]string{
		"next\njump\n":                            `line 2: unknown command "jump" (try help)`,
		"goto 99\n":                               "line 1 (goto 99): goto: there is no step 99 (steps 0 to 20)",
		"break raft-9\n":                          `line 1 (break raft-9): break: "raft-9" is neither an actor (raft-1, raft-2, raft-3, raft-4) nor a message type of raft`,
		"deliver 999\n":                           "line 1 (deliver 999): deliver: message #999 is not pending at step 0",
		"goto 16\ndeliver 22":                     "line 2 (deliver 22): deliver: message #22 is queued behind #16 (FIFO raft-1→raft-3)",
		"state nobody\n":                          `line 1 (state nobody): state: no actor "nobody" (actors: raft-1, raft-2, raft-3, raft-4)`,
		"inject send raft-1 Nope\n":               "line 1 (inject send raft-1 Nope): inject: send: raft has no message type \"Nope\" (types: Bootstrap, ClientCommand, RequestVote, Vote, AppendEntries, AppendEntriesResponse, ElectionTimeout, Heartbeat, RetryVotes, InitLeader)",
		"inject send raft-1 Vote {\"Bogus\":1}\n": "line 1 (inject send raft-1 Vote {\"Bogus\":1}): inject: send: Vote fields {\"Bogus\":1}: json: unknown field \"Bogus\"",
		"save ../../examples/traces/raft-45.min.trace\n": "line 1 (save ../../examples/traces/raft-45.min.trace): save: ../../examples/traces/raft-45.min.trace is the trace being walked through; it is never overwritten",
	} {
		w := walk(t, "../../examples/traces/raft-45.min.trace")
		var out bytes.Buffer
		err := Script(context.Background(), w, strings.NewReader(script), &out)
		require.Error(t, err, script)
		assert.Equal(t, want, err.Error(), script)
	}
}

func TestSaveNeverOverwritesWithoutForce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken.trace")
	require.NoError(t, os.WriteFile(path, []byte("mine"), 0o644))
	w := walk(t, "../../examples/traces/raft-45.min.trace")
	c, err := Parse("save " + path)
	require.NoError(t, err)
	err = w.Exec(context.Background(), c)
	require.Error(t, err)
	assert.Equal(t, "save: "+path+" exists (save! "+path+" overwrites it)", err.Error())
	b, _ := os.ReadFile(path)
	assert.Equal(t, "mine", string(b))

	c, err = Parse("save! " + path)
	require.NoError(t, err)
	require.NoError(t, w.Exec(context.Background(), c))
	tr, _, err := record.ReadFile(path, catalog())
	require.NoError(t, err)
	assert.Len(t, tr.Events, 21)

	// No name: a fresh one next to the walked file, never an existing one.
	src := filepath.Join(dir, "x.min.trace")
	orig, err := os.ReadFile("../../examples/traces/raft-45.min.trace")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(src, orig, 0o644))
	w = walk(t, src)
	for _, want := range []string{"x.whatif.trace", "x.whatif-2.trace"} {
		require.NoError(t, w.Exec(context.Background(), Command{Op: OpSave}))
		_, err := os.Stat(filepath.Join(dir, want))
		require.NoError(t, err, want)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 4, "no temporary file is left behind")
}
