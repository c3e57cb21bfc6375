package minimize_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// TestNoDivergeOnATraceEndingInAPanic: raft-58a's violation is a handler's
// panic at the trace's last step. NoDiverge first replays the trace to
// collect its transitions, and that replay must take the panic as the
// trace's end (the violation looked for), not as a divergence; it did not
// until 2026-11-26 ("observe transitions: diverged at event 30: expected
// the run to go on").
func TestNoDivergeOnATraceEndingInAPanic(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", "raft-58a.min.trace"), record.NewCatalog(raft.System()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Strategy: "nodiverge", Workers: 1})
	require.NoError(t, err)
	require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
	require.Equal(t, tr.Header.Deliveries, res.Trace.Header.Deliveries, "the shipped trace is minimal for NoDiverge")
}
