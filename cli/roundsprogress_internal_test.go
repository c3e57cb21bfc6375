package cli

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// TestRoundsProgress shows progress with no delay (the command waits a
// second), and none when the layout is done first.
func TestRoundsProgress(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-45.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	var w bytes.Buffer
	lay, err := buildRounds(context.Background(), &w, sys, tr, 0)
	require.NoError(t, err)
	require.Len(t, lay.Rounds, 1)
	assert.Regexp(t, regexp.MustCompile(`show --rounds: 21 events laid out in \d+\.\ds\n$`), w.String())
	assert.Regexp(t, regexp.MustCompile(`^show --rounds: \d+ of 21 events laid out, \d+\.\ds elapsed\n`), w.String())

	w.Reset()
	_, err = buildRounds(context.Background(), &w, sys, tr, 1<<40)
	require.NoError(t, err)
	assert.Empty(t, w.String())
}
