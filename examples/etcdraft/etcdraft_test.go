package etcdraft_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// TestCorrectClusterMakesProgress runs the cluster with every bug switch
// off: no violation, a leader is elected, client requests are applied and
// snapshots are taken and sent.
func TestCorrectClusterMakesProgress(t *testing.T) {
	sys := etcdraft.System()
	tr, runs, err := record.Search(context.Background(), sys, nil,
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 2000, MaxExternals: 60}, Runs: 5})
	require.NoError(t, err)
	assert.Nil(t, tr, "no violation with every switch off")
	assert.Equal(t, 5, runs)

	tr, err = record.Fuzz(context.Background(), sys, nil, record.FuzzConfig{Seed: 3, MaxSteps: 2000, MaxExternals: 60})
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, e := range tr.Events {
		if e.Kind == record.Deliver {
			kinds[record.TypeName(e.Msg)]++
		}
	}
	for _, k := range []string{"Campaign", "Vote", "VoteResp", "App", "AppResp", "Heartbeat", "Put", "Snap"} {
		assert.Positive(t, kinds[k], "%s delivered: %v", k, kinds)
	}
}

// TestRunsAreDeterministic replays a fuzz run with crashes, partitions and
// snapshots: the library's crypto/rand election timeout decides nothing.
func TestRunsAreDeterministic(t *testing.T) {
	sys := etcdraft.System()
	cfg := record.FuzzConfig{Seed: 7, MaxSteps: 1500, MaxExternals: 60}
	a, err := record.Fuzz(context.Background(), sys, nil, cfg)
	require.NoError(t, err)
	b, err := record.Fuzz(context.Background(), sys, nil, cfg)
	require.NoError(t, err)
	var ea, eb bytes.Buffer
	require.NoError(t, a.Encode(&ea))
	require.NoError(t, b.Encode(&eb))
	assert.True(t, bytes.Equal(ea.Bytes(), eb.Bytes()), "same seed, same trace")
	results, err := replay.Repeat(context.Background(), sys, a, 5)
	require.NoError(t, err)
	for i, r := range results {
		assert.Nil(t, r.Divergence, "replay %d", i)
	}
}
