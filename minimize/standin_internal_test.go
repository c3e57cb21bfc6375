package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandInsListAnOutsider runs the gather pass on what the other
// passes make of a fresh raft-42 trace (seed 200004): 24 deliveries
// (E:9), whose Bootstraps list raft-1, raft-2 and raft-3, of which
// raft-3 never starts, while raft-4, outside the list, leads term 1 with
// two votes. Only the exchanges with raft-4 change a list, so there are
// three stand-in moves; the one that lists raft-4 in raft-3's place lets
// it lead with one vote, and the pass reaches 15 deliveries (E:8), the
// best known size, with the same trace and steps for 1 and 2 workers.
func TestStandInsListAnOutsider(t *testing.T) {
	tr, m, _ := raftMinimizer(t, "testdata/raft-42-outsider.trace")
	require.Equal(t, [2]int{24, 9}, [2]int{tr.Header.Deliveries, tr.Header.Externals})
	sys, members := m.sys, m.sys.Members(m.resolved)
	require.Len(t, m.standIns(tr.Events, members), 3, "raft-4 exchanged with raft-1, raft-2, raft-3")
	withoutSymmetry(m)
	assert.Empty(t, m.standIns(tr.Events, members), "no symmetry, no stand-in")

	best, steps := gatherWithOneAndTwoWorkers(t, sys, tr)
	assert.Equal(t, [2]int{15, 8}, [2]int{best[0].Header.Deliveries, best[0].Header.Externals})
	assert.Contains(t, best[0].Events[3].Msg.(raft.Bootstrap).Members, record.ActorID("raft-4"))
	assert.Equal(t, best[0].Events, best[1].Events, "the same trace with 1 and 2 workers")
	assert.Equal(t, steps[0], steps[1], "the same steps")
	rep, err := replay.Run(context.Background(), sys, best[0])
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)
}
