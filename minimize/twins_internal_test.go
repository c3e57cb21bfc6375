package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneAtATimeRemovesTwins runs one-at-a-time on what the other passes left for raft-45 fuzz seed
// 13500204 (held-out range 13500000): 15 deliveries (E:8), two candidates each fire their election
// timer twice and are both leader in term 2. Without either candidate's first timer that candidate
// is in another term than the other, and no single removal reproduces (demi explain); without both
// the two are leader in term 1: 13 (E:8), the bug's best known size.
func TestOneAtATimeRemovesTwins(t *testing.T) {
	m, ctx := searchPassOn(t, "testdata/raft-45-13500204-twin-timers.trace", raft.System(), [2]int{15, 8})
	fp := m.best.Header.Violation.Fingerprint
	require.Equal(t, 4, timersOf(m.best.Events))
	m.limit.Store(m.allowance(StageOneAtATime))
	require.NoError(t, m.oneAtATime(ctx))
	assert.Equal(t, [2]int{13, 8}, sizeOf(m.best))
	assert.Equal(t, 2, timersOf(m.best.Events), "one election timer per candidate")
	assert.Equal(t, fp, m.best.Header.Violation.Fingerprint)
}

// timersOf counts the firings of raft's election timer in events.
func timersOf(events []record.Event) (n int) {
	for _, e := range events {
		n += int(boolBit(e.Timer == "election"))
	}
	return n
}
