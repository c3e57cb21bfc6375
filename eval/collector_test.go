package eval_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain serves the minimizations of eval.Config.Isolate: the child
// process is this test binary.
func TestMain(m *testing.M) {
	if req, ok := os.LookupEnv(eval.ChildEnv); ok {
		os.Exit(eval.ServeMinimize(context.Background(), record.NewCatalog(tokenring.System()), req, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestIsolatedMinimizationIsTheSameRun: a minimization run in a child
// process (Isolate) gives the row an in-process one gives, step for step.
func TestIsolatedMinimizationIsTheSameRun(t *testing.T) {
	sys := tokenring.System()
	dir := t.TempDir()
	ringTrace(t, sys, dir)
	rows := map[bool]eval.Row{}
	for _, isolate := range []bool{false, true} {
		rep, err := eval.Run(context.Background(), eval.Config{Catalog: record.NewCatalog(sys), TraceDir: dir,
			Budget: time.Minute, Workers: 1, PeerBudget: -1, OptimalBudget: -1, Isolate: isolate})
		require.NoError(t, err)
		require.Len(t, rep.Rows, 1)
		require.Empty(t, rep.Rows[0].Err)
		rows[isolate] = rep.Rows[0]
	}
	in, out := rows[false], rows[true]
	assert.Equal(t, eval.Size{Deliveries: 3, Externals: 4}, out.TFB)
	assert.Equal(t, in.TFB, out.TFB)
	assert.Equal(t, in.Replays, out.Replayed, "the child's result replays")
	require.Equal(t, len(in.Stages), len(out.Stages))
	for i := range in.Stages {
		assert.Equal(t, in.Stages[i].Steps, out.Stages[i].Steps, in.Stages[i].Name)
		assert.Equal(t, in.Stages[i].Schedules, out.Stages[i].Schedules, in.Stages[i].Name)
	}
	assert.Equal(t, in.Pace, out.Pace)
	assert.NotEmpty(t, out.Pace)
	assert.True(t, in.Proved, "the optimum pass proves 3 (E:4) optimal over its external events")
	assert.True(t, out.Proved, "and the child says so")
}

// TestServeMinimizeRejectsAMalformedRequest: exit status 2, as for bad
// input.
func TestServeMinimizeRejectsAMalformedRequest(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := eval.ServeMinimize(context.Background(), record.NewCatalog(), "{not json", &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout.String(), "no report")
	assert.Contains(t, stderr.String(), eval.ChildEnv+": invalid character")
}
