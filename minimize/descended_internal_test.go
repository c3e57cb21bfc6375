package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDescendedCountsEarlierChunksWithAsManyChecksLeft(t *testing.T) {
	d := newDescended()
	x, y := checkKey{1}, checkKey{2}
	d.note([]passed{{x, reached{2, 10}}, {y, reached{2, 7}}})
	assert.False(t, d.ends(x, 2, 10), "a descent of the same chunk is not counted: its moves run at once")
	assert.True(t, d.ends(x, 3, 10), "a later chunk with as many checks left")
	assert.True(t, d.ends(x, 3, 4), "fewer checks left walk a prefix of the same path")
	assert.False(t, d.ends(x, 3, 11), "more checks left may go further")
	assert.True(t, d.ends(y, 5, 7))
	assert.False(t, d.ends(checkKey{3}, 5, 1), "a trace no descent passed")
}

// TestDescendedSkipsOnlyDescentsThatFail scans the retarget pass's moves on
// a raft-46 trace (249 moves, one of which ends smaller), one move a
// chunk, with and without the scan's memory of descents: every move ends
// the same way (smaller than the trace or not, the same trace when
// smaller), and the scan with the memory runs fewer steps (20,517 of
// 23,430 when written).
func TestDescendedSkipsOnlyDescentsThatFail(t *testing.T) {
	tr, m, c := raftMinimizer(t, "testdata/raft-46-local-minimum.trace")
	var moves []edit
	moves = append(moves, retargetEdits(tr.Events, 0)...)
	moves = append(moves, m.moves(tr)...)
	moves = append(moves, handoverEdits(tr.Events)...)
	moves = append(moves, redirectEdits(tr.Events)...)
	bp := dpor.FromEvents(c.Fingerprinter(), tr.Events)
	seen := newDescended()
	var plain, memo int64
	smallerMoves := 0
	for k, e := range moves {
		a, n, err := m.tryPlan(context.Background(), c, tr, e(c.Fingerprinter(), bp), false, newDescended(), 0)
		require.NoError(t, err)
		plain += n
		b, n, err := m.tryPlan(context.Background(), c, tr, e(c.Fingerprinter(), bp), false, seen, k)
		require.NoError(t, err)
		memo += n
		require.Equal(t, a == nil, b == nil, "move %d", k)
		if a != nil {
			smallerMoves++
			assert.Equal(t, a.Events, b.Events, "move %d", k)
		}
	}
	assert.Equal(t, 1, smallerMoves)
	assert.Less(t, memo, plain, "descents that pass a trace an earlier one passed stop there")
	t.Logf("%d moves (%d end smaller): %d steps, %d with the memory", len(moves), smallerMoves, plain, memo)
}
