package cli_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ringCampaign runs a tokenring fuzz campaign into dir and returns the
// names of the traces it wrote.
func ringCampaign(t *testing.T, dir string, extra ...string) []string {
	t.Helper()
	args := append([]string{"fuzz", "--system", "tokenring", "--bug", "restore-token", "--seed", "1",
		"--max-steps", "300", "--externals", "20", "--dir", dir}, extra...)
	code, out, errs := run(t, args...)
	require.Equal(t, 0, code, out+errs)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestFuzzShardsSplitTheSeeds: the shards of a campaign write, together,
// the very traces one run over the same seeds writes.
func TestFuzzShardsSplitTheSeeds(t *testing.T) {
	all := ringCampaign(t, filepath.Join(t.TempDir(), "all"), "--runs", "30")
	require.Greater(t, len(all), 3)
	shards := t.TempDir()
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		ringCampaign(t, shards, "--runs", "10", "--shard", s)
	}
	entries, err := os.ReadDir(shards)
	require.NoError(t, err)
	var union []string
	for _, e := range entries {
		union = append(union, e.Name())
	}
	assert.Equal(t, all, union)

	// A Kubernetes Indexed Job's pod 1 of 3 is shard 1/3.
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	k8sDir := filepath.Join(t.TempDir(), "k8s")
	k8s := ringCampaign(t, k8sDir, "--runs", "10", "--shard", "3")
	one := ringCampaign(t, filepath.Join(t.TempDir(), "one"), "--runs", "10", "--shard", "1/3")
	require.Equal(t, one, k8s)
	for _, n := range k8s {
		got, err := os.ReadFile(filepath.Join(k8sDir, n))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(shards, n))
		require.NoError(t, err)
		assert.Equal(t, want, got, n)
	}
}

func TestFuzzShardBadInput(t *testing.T) {
	for shard, want := range map[string]string{
		"3/3": "--shard 3/3: the shard index must be 0 to 2",
		"a/3": "--shard a/3: the shard index must be 0 to 2",
		"1/0": "--shard 1/0: the number of shards must be 1 to 1048576",
		"4":   "--shard 4: want I/N, or N with JOB_COMPLETION_INDEX set (it is not)",
	} {
		t.Setenv("JOB_COMPLETION_INDEX", "")
		code, out, errs := run(t, "fuzz", "--system", "tokenring", "--shard", shard, "--runs", "1")
		assert.Equal(t, 2, code, shard)
		assert.Empty(t, out)
		oneLineError(t, errs, want)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "7")
	_, _, errs := run(t, "fuzz", "--system", "tokenring", "--shard", "4", "--runs", "1")
	oneLineError(t, errs, `--shard 4: JOB_COMPLETION_INDEX="7": want a shard index from 0 to 3`)
	code, _, errs := run(t, "fuzz", "--system", "tokenring", "--dir", t.TempDir(), "-o", "x.trace")
	assert.Equal(t, 2, code)
	oneLineError(t, errs, "-o and --dir exclude each other: --dir writes every failing run, -o the first")
	code, _, errs = run(t, "fuzz", "--system", "tokenring", "--mode", "nope")
	assert.Equal(t, 2, code)
	oneLineError(t, errs, `--mode: unknown fuzz mode "nope" (known: swarm, walk, rounds, coverage)`)
}

func TestTriageGroupsACampaign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	ringCampaign(t, dir, "--runs", "24", "--bug", "panic-on-lap")
	out := filepath.Join(t.TempDir(), "t")
	code, stdout, errs := run(t, "triage", dir, "-o", out, "--no-minimize")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "│ 1     │ tokenring (restore-token, panic-on-lap) │")
	assert.Contains(t, stdout, " in 2 group(s)\n")
	assert.FileExists(t, filepath.Join(out, "summary.md"))

	code, _, errs = run(t, "triage", dir, "-o", out)
	assert.Equal(t, 2, code)
	oneLineError(t, errs, "-o "+out+": not empty; triage writes only to a new or empty directory")
	code, _, errs = run(t, "triage", t.TempDir())
	assert.Equal(t, 2, code)
	oneLineError(t, errs, "no .trace file in ")
}

// TestCoverageCampaignShards: a coverage campaign (--mode coverage --dir)
// split by --shard: each shard keeps a corpus of its own over its seeds
// (Seed+I, Seed+I+N, ...), so it writes the same traces every time, only
// for its seeds; its first trace is the one fuzz -o writes for the same
// shard; and each replays as a coverage trace.
func TestCoverageCampaignShards(t *testing.T) {
	cat := record.NewCatalog(ballotSystem())
	campaign := func(dir string, extra ...string) []string {
		args := append([]string{"fuzz", "--system", "ballot", "--bug", "grant-equal", "--mode", "coverage",
			"--seed", "1", "--runs", "40", "--shard", "1/2", "--dir", dir}, extra...)
		code, out, errs := runCat(cat, args...)
		require.Equal(t, 0, code, out+errs)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	names := campaign(a)
	require.Greater(t, len(names), 1)
	require.Equal(t, names, campaign(b))
	first := uint64(math.MaxUint64)
	for _, n := range names {
		assert.Equal(t, read(t, filepath.Join(a, n)), read(t, filepath.Join(b, n)), n)
		var seed uint64
		_, err := fmt.Sscanf(n, "grant-equal-%d.trace", &seed)
		require.NoError(t, err, n)
		assert.Equal(t, uint64(0), seed%2, "%s: shard 1/2 from seed 1 tries seeds 2, 4, ...", n)
		first = min(first, seed)
		code, out, errs := runCat(cat, "replay", filepath.Join(a, n))
		require.Equal(t, 0, code, out+errs)
		code, out, errs = runCat(cat, "show", "--json", filepath.Join(a, n))
		require.Equal(t, 0, code, errs)
		assert.Contains(t, out, `"mode": "coverage"`)
	}
	one := filepath.Join(t.TempDir(), "one.trace")
	code, out, errs := runCat(cat, "fuzz", "--system", "ballot", "--bug", "grant-equal", "--mode", "coverage",
		"--seed", "1", "--runs", "40", "--shard", "1/2", "-o", one)
	require.Equal(t, 0, code, out+errs)
	assert.Equal(t, read(t, filepath.Join(a, fmt.Sprintf("grant-equal-%d.trace", first))), read(t, one))
}
