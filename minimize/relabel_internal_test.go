package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChecksRelabelAnImageOfTheTarget checks the plan of a minimized
// raft-66 trace (13 deliveries, E:7, LeaderCompleteness(raft-3)) with
// raft-2 and raft-3 exchanged: it breaks LeaderCompleteness(raft-2), an
// image of the target under raft's symmetry. The check stops there and
// returns that run relabelled back onto the target, replayed: the same
// size, the target's fingerprint. Without the symmetry the same check
// finds nothing.
func TestChecksRelabelAnImageOfTheTarget(t *testing.T) {
	tr, sys, err := record.ReadFile("testdata/raft-66-1800001-min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	require.Equal(t, "LeaderCompleteness(raft-3)", tr.Header.Violation.Fingerprint)
	swapped := sys.Symmetry.Relabel(tr.Events, record.Perm{"raft-2": "raft-3", "raft-3": "raft-2"})
	one := checkSettings{mode: dpor.STS, maxSched: 1}

	m, err := newStageMinimizer(sys, tr, tr, 1)
	require.NoError(t, err)
	require.Contains(t, m.images, "LeaderCompleteness(raft-2)")
	r, err := m.cachedCheck(context.Background(), m.checks[0], one, dpor.FromEvents(m.fp, swapped))
	require.NoError(t, err)
	require.NotNil(t, r.Trace, "the image is relabelled onto the target")
	assert.Equal(t, "LeaderCompleteness(raft-3)", r.Trace.Header.Violation.Fingerprint)
	assert.Equal(t, [2]int{13, 7}, [2]int{r.Trace.Header.Deliveries, r.Trace.Header.Externals})
	assert.Equal(t, 2, r.Schedules, "the check and the relabelled run")
	rep, err := replay.Run(context.Background(), sys, r.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced)

	withoutSymmetry(m)
	m.checks, m.images = nil, nil
	require.NoError(t, m.newChecks())
	r, err = m.cachedCheck(context.Background(), m.checks[0], one, dpor.FromEvents(m.fp, swapped))
	require.NoError(t, err)
	assert.Nil(t, r.Trace, "no symmetry, no relabelling")
}
