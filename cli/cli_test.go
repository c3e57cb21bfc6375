package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

func catalog() *record.Catalog { return record.NewCatalog(tokenring.System(), raft.System()) }

// run runs the CLI and returns its exit status, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), catalog(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// fuzzRing writes a tokenring trace with a violation and returns its path.
func fuzzRing(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ring.trace")
	code, out, errs := run(t, "fuzz", "--system", "tokenring", "--bug", "restore-token", "--mode", "walk", "--seed", "1",
		"--runs", "50", "--max-steps", "400", "--externals", "30", "-o", path)
	require.Equal(t, 0, code, out+errs)
	return path
}

func TestSystemsListsSystemsAndBugs(t *testing.T) {
	code, out, _ := run(t, "systems")
	require.Equal(t, 0, code)
	for _, want := range []string{"tokenring", "raft", "restore-token", "raft-45", "raft-66"} {
		assert.Contains(t, out, want)
	}
}

func TestFuzzIsDeterministic(t *testing.T) {
	a, b := fuzzRing(t), fuzzRing(t)
	da, err := os.ReadFile(a)
	require.NoError(t, err)
	db, err := os.ReadFile(b)
	require.NoError(t, err)
	assert.Equal(t, da, db, "same flags, same trace, byte for byte")
}

func TestFuzzWithoutViolationExitsOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.trace")
	code, _, errs := run(t, "fuzz", "--system", "tokenring", "--max-steps", "200", "--runs", "3", "-o", path)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no violation")
	assert.NoFileExists(t, path)
}

func TestReplayReproducesEveryTime(t *testing.T) {
	path := fuzzRing(t)
	code, out, errs := run(t, "replay", path, "--times", "20")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "20/20 replays reproduced two-tokens")
}

func TestShowTableAndJSON(t *testing.T) {
	path := fuzzRing(t)
	code, out, _ := run(t, "show", path)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "STEP")
	assert.Contains(t, out, "violation after step")

	code, out, _ = run(t, "show", "--json", path)
	require.Equal(t, 0, code)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	tr, _, err := record.ReadFile(path, catalog())
	require.NoError(t, err)
	assert.EqualValues(t, tr.Header.Deliveries, doc["deliveries"])
	assert.EqualValues(t, tr.Header.Externals, doc["externals"])
	assert.Equal(t, "two-tokens", doc["violation"].(map[string]any)["fingerprint"])
	assert.Len(t, doc["events"], len(tr.Events))
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(fuzzRing(t))
	require.NoError(t, err)
	wrongVersion, err := msgpack.Marshal(map[string]any{"magic": "demi-trace", "format": 99, "system": "tokenring"})
	require.NoError(t, err)
	unknownSystem, err := msgpack.Marshal(map[string]any{"magic": "demi-trace", "format": record.FormatVersion, "system": "paxos"})
	require.NoError(t, err)
	random := make([]byte, 512)
	for i := range random {
		random[i] = byte(i*7919 + 13)
	}
	files := map[string][]byte{
		"random":         random,
		"truncated":      good[:len(good)*2/3],
		"empty":          nil,
		"wrong-version":  wrongVersion,
		"unknown-system": unknownSystem,
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".trace")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			for _, cmd := range [][]string{{"replay", path}, {"show", path}, {"show", "--json", path}} {
				code, out, errs := run(t, cmd...)
				assert.Equal(t, 2, code, "%v", cmd)
				assert.Empty(t, out)
				assert.Equal(t, 1, strings.Count(errs, "\n"), "one line of error: %q", errs)
				assert.True(t, strings.HasPrefix(errs, "demi: "), errs)
			}
		})
	}
}

func TestBadFlagsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"fuzz", "--system", "nope"},
		{"fuzz"},
		{"fuzz", "--system", "tokenring", "--bug", "no-such-bug"},
		{"fuzz", "--system", "tokenring", "--opt", "size=three"},
		{"replay", "--times", "0", "x"},
		{"replay", "does-not-exist.trace"},
		{"show", "--no-such-flag", "x"},
		{"no-such-command"},
	} {
		code, _, errs := run(t, args...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
		assert.NotEmpty(t, errs)
	}
}

func TestShippedRaftTraceReplays(t *testing.T) {
	code, out, errs := run(t, "replay", "../examples/traces/raft-45.trace", "--times", "2")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "2/2 replays reproduced")
}
