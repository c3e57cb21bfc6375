package etcdraft_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/record"
)

// TestCampaignExercisesFaults runs the first 20 runs of the documented
// campaign with every switch off (docs/examples.md: `demi fuzz --system
// etcdraft --opt read-weight=10 --seed 1 --runs 10000 --max-steps 1000
// --externals 40`) and checks what they exercise: crash-restarts,
// partitions, snapshots sent to followers, client writes and reads (by
// ReadIndex, forwarded by followers); and no violation.
func TestCampaignExercisesFaults(t *testing.T) {
	counts := map[string]int{}
	for seed := uint64(1); seed <= 20; seed++ {
		tr, err := record.Fuzz(context.Background(), etcdraft.System(), record.Options{etcdraft.OptReadWeight: "10"},
			record.FuzzConfig{Seed: seed, MaxSteps: 1000, MaxExternals: 40})
		require.NoError(t, err)
		require.Nil(t, tr.Header.Violation, "seed %d", seed)
		for _, e := range tr.Events {
			switch e.Kind {
			case record.Restart, record.Partition, record.Heal:
				counts[e.Kind.String()]++
			case record.Deliver:
				counts[record.TypeName(e.Msg)]++
			}
		}
	}
	t.Logf("20 runs: %v", counts)
	// docs/examples.md cites these.
	assert.Equal(t, map[string]int{"restart": 37, "partition": 22, "heal": 2, "Put": 362, "Prop": 133, "Get": 374, "ReadIndex": 144, "ReadIndexResp": 89, "Snap": 9, "Campaign": 2156},
		map[string]int{"restart": counts["restart"], "partition": counts["partition"], "heal": counts["heal"], "Put": counts["Put"], "Prop": counts["Prop"],
			"Get": counts["Get"], "ReadIndex": counts["ReadIndex"], "ReadIndexResp": counts["ReadIndexResp"], "Snap": counts["Snap"], "Campaign": counts["Campaign"]})
	for _, k := range []string{"restart", "partition", "heal", "Snap", "Put", "Prop", "Get", "ReadIndex", "ReadIndexResp", "Campaign", "App"} {
		assert.Positive(t, counts[k], k)
	}
}
