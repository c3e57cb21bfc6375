package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandInListsTheExchangesThatChangeTheConfiguration checks the
// plan of one stand-in move on the 30014 fixture (Bootstraps listing
// raft-1, raft-2, raft-3 of four members): only the exchanges with
// raft-4 change a list, and the move of raft-2 and raft-4 lists raft-4
// in raft-2's place and leaves every other event as it was.
func TestStandInListsTheExchangesThatChangeTheConfiguration(t *testing.T) {
	tr, m, _ := raftMinimizer(t, "testdata/raft-58b-outsider.trace")
	require.Len(t, m.standInEdits(tr.Events), 3, "raft-4 exchanged with raft-1, raft-2, raft-3")
	ev, ok := standIn(m.sys.Symmetry, tr.Events, record.Perm{"raft-2": "raft-4", "raft-4": "raft-2"})
	require.True(t, ok)
	require.Len(t, ev, len(tr.Events))
	boots := 0
	for i, e := range ev {
		if b, isBoot := e.Msg.(raft.Bootstrap); isBoot {
			boots++
			assert.Equal(t, []record.ActorID{"raft-1", "raft-3", "raft-4"}, b.Members, "event %d", i)
			continue
		}
		assert.Equal(t, tr.Events[i], e, "event %d", i)
	}
	assert.Equal(t, 6, boots, "three Bootstrap sends and their deliveries")
	_, ok = standIn(m.sys.Symmetry, tr.Events, record.Perm{"raft-1": "raft-3", "raft-3": "raft-1"})
	assert.False(t, ok, "exchanging two listed members changes no list")
}

// TestStandInEscapesRaft58bOutsiderLeaders runs the gather stage on the
// results main (44619b5) gave two unseen raft-58b fuzz seeds whose
// leader is outside the Bootstrap lists: 30014 (23 deliveries, E:8:
// raft-4 leads term 1 with two votes, raft-1 term 2), where no gather
// move helps, and 7139 (12 deliveries, E:10: the one-leader route, led by
// the outsider raft-1, with all four actors started). A stand-in move
// (the second of three on each) lists the outsider: on 7139 it reaches
// the optimum, 9 deliveries (E:8), by itself; on 30014 it reaches 22
// deliveries (E:8), a two-leader route of members, from which a gather
// move reaches 9 (E:8). The result and the steps do not depend on the
// workers.
func TestStandInEscapesRaft58bOutsiderLeaders(t *testing.T) {
	cases := []struct {
		path   string
		size   [2]int
		gather int    // gather moves, none of which helps
		moved  [2]int // the size the stand-in move (the second) reaches
	}{
		{"testdata/raft-58b-outsider.trace", [2]int{23, 8}, 30, [2]int{22, 8}},
		{"testdata/raft-58b-outsider-leader.trace", [2]int{12, 10}, 18, [2]int{9, 8}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			tr, m, c := raftMinimizer(t, tc.path)
			require.Equal(t, tc.size, [2]int{tr.Header.Deliveries, tr.Header.Externals})
			gathers := m.gatherEdits(tr.Events)
			require.Len(t, gathers, tc.gather)
			k, _ := firstMove(t, m, c, tr, gathers)
			require.Equal(t, -1, k, "no gather move helps")
			edits := m.standInEdits(tr.Events)
			require.Len(t, edits, 3)
			k, nt := firstMove(t, m, c, tr, edits)
			require.Equal(t, 1, k)
			assert.Equal(t, tc.moved, [2]int{nt.Header.Deliveries, nt.Header.Externals})

			gatherStageReachesTheOptimum(t, m.sys, tr)
		})
	}
}

// TestStandInNeedsASymmetry checks that a system without
// record.Symmetry (nothing relabels its messages) has no stand-in move.
func TestStandInNeedsASymmetry(t *testing.T) {
	tr, m, _ := raftMinimizer(t, "testdata/raft-58b-outsider.trace")
	withoutSymmetry(m)
	assert.Empty(t, m.standInEdits(tr.Events))
}
