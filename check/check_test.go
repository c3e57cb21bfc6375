package check_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/demi-project/demi/check"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func load(t *testing.T, name string) (*record.Trace, *record.System) {
	t.Helper()
	tr, sys, err := record.ReadFile("../examples/traces/"+name, record.NewCatalog(raft.System()))
	require.NoError(t, err)
	return tr, sys
}

func TestATraceThatReplaysExactlyIsReproduced(t *testing.T) {
	tr, sys := load(t, "raft-45.min.trace")
	res, err := check.Run(context.Background(), sys, tr, check.Config{})
	require.NoError(t, err)
	assert.Equal(t, check.Reproduced, res.Outcome)
	assert.Equal(t, 0, res.Schedules)
	assert.Nil(t, res.Replay.Divergence)
	assert.Equal(t, 21, res.Replay.Events)
	require.NotNil(t, res.Trace)
	assert.Len(t, res.Trace.Events, 21)
	assert.Equal(t, tr.Header.Note, res.Trace.Header.Note)
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", res.Trace.Header.Violation.Fingerprint)
}

func TestWithTheBugOffTheViolationIsUnreachable(t *testing.T) {
	tr, sys := load(t, "raft-45.min.trace")
	res, err := check.Run(context.Background(), sys, tr, check.Config{Options: record.Options{raft.Bug45: "false"}, MaxSchedules: 200})
	require.NoError(t, err)
	assert.Equal(t, check.Unreachable, res.Outcome)
	assert.Equal(t, 200, res.Schedules, "the whole budget is spent")
	assert.False(t, res.Exhausted)
	assert.Nil(t, res.Trace)
	// With the bug off the trace still replays event for event (the
	// duplicate vote is delivered, it just no longer makes a leader), so
	// exact replay runs to the end without a divergence or a violation.
	assert.Nil(t, res.Replay.Divergence)
	assert.False(t, res.Replay.Reproduced)
	assert.Nil(t, res.Replay.Violation)
	assert.Equal(t, 21, res.Replay.Events)
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", res.Violation.Fingerprint)
	assert.Equal(t, "true", tr.Header.OptionMap()[raft.Bug45], "the input is not modified")
}

func TestASearchThatRunsOutOfSchedulesSaysSo(t *testing.T) {
	tr, sys := load(t, "raft-46.min.trace")
	res, err := check.Run(context.Background(), sys, tr, check.Config{Options: record.Options{raft.Bug46: "false"}, MaxSchedules: 1000})
	require.NoError(t, err)
	assert.Equal(t, check.Unreachable, res.Outcome)
	assert.True(t, res.Exhausted)
	assert.Less(t, res.Schedules, 1000)
	assert.Greater(t, res.Schedules, 1)
}

// Turning raft-58a on changes what a new leader sends (a message to
// itself), so every later message ID shifts and exact replay of the raft-45
// trace diverges; the duplicate-vote bug is still there, and the tolerant
// check finds the schedule that reaches it.
func TestAChangedRunThatStillReachesTheViolationIsReachable(t *testing.T) {
	tr, sys := load(t, "raft-45.min.trace")
	cfg := check.Config{Options: record.Options{raft.Bug58a: "true"}, MaxSchedules: 200}
	res, err := check.Run(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	assert.Equal(t, check.Reachable, res.Outcome)
	require.NotNil(t, res.Replay.Divergence)
	assert.Equal(t, 19, res.Replay.Divergence.Event)
	assert.Equal(t, 1, res.Schedules)
	require.NotNil(t, res.Trace)
	h := res.Trace.Header
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", h.Violation.Fingerprint)
	assert.Equal(t, "true", h.OptionMap()[raft.Bug58a])
	assert.Equal(t, 16, h.Deliveries, "13 of the trace and 3 of the new message type")
	assert.Equal(t, 8, h.Externals)
	assert.Equal(t, "re-checked by demi from a trace of 13 deliveries and 8 externals", h.Note)

	// The schedule is exact: it replays as it is.
	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced, rep.Divergence)

	// And the check is deterministic, byte for byte.
	again, err := check.Run(context.Background(), sys, tr, cfg)
	require.NoError(t, err)
	var a, b bytes.Buffer
	require.NoError(t, res.Trace.Encode(&a))
	require.NoError(t, again.Trace.Encode(&b))
	assert.Equal(t, a.Bytes(), b.Bytes())
}

func TestBadInputIsAnError(t *testing.T) {
	tr, sys := load(t, "raft-45.min.trace")
	_, err := check.Run(context.Background(), sys, &record.Trace{Header: record.Header{System: "raft"}}, check.Config{})
	assert.ErrorIs(t, err, check.ErrNoViolation)
	_, err = check.Run(context.Background(), sys, tr, check.Config{Options: record.Options{"members": "x"}})
	assert.EqualError(t, err, `check: option members: "x" is not an integer`)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = check.Run(ctx, sys, tr, check.Config{Options: record.Options{raft.Bug45: "false"}})
	assert.ErrorIs(t, err, context.Canceled)
}

// With raft-58a on, a new leader sends itself a message of a type the
// raft-45 trace never delivered. No step of the trace stands for it, so
// the dpor search alone never delivers it, the leader never initializes,
// and in the long trace the duplicate-vote violation was lost (no schedule
// of 2,000 reached it). The first schedule delivers such messages as soon
// as it can and reaches it.
func TestANewMessageTypeDoesNotHideTheBugInALongTrace(t *testing.T) {
	tr, sys := load(t, "raft-45.trace")
	res, err := check.Run(context.Background(), sys, tr, check.Config{Options: record.Options{raft.Bug58a: "true"}})
	require.NoError(t, err)
	assert.Equal(t, check.Reachable, res.Outcome)
	assert.Equal(t, 1, res.Schedules)
	require.NotNil(t, res.Replay.Divergence)
	assert.Equal(t, 18, res.Replay.Divergence.Event)
	rep, err := replay.Run(context.Background(), sys, res.Trace)
	require.NoError(t, err)
	assert.True(t, rep.Reproduced, "the schedule found replays exactly")
	assert.Equal(t, "ElectionSafety(raft-1,raft-2)", res.Trace.Header.Violation.Fingerprint)
}
