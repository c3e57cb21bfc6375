package minimize

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// scanOutcome is what one scan of firstTrace gave: the winning index, its
// trace, its error and the statistics it counted.
type scanOutcome struct {
	index            int
	trace            *record.Trace
	err              error
	steps, schedules int64
}

// scanWith runs firstTrace over outcomes with workers checkers: candidate i
// runs i+1 schedules of 10 steps and returns outcomes[i] (a trace, an
// error, or neither); the earliest candidates are the slowest, so that with
// several workers later candidates finish first.
func scanWith(t *testing.T, workers int, outcomes []any) scanOutcome {
	t.Helper()
	sys, tr := tokenTrace(t)
	m, err := newStageMinimizer(sys, tr, tr, workers)
	require.NoError(t, err)
	m.limit.Store(1 << 40)
	i, got, err := m.firstTrace(context.Background(), len(outcomes), scanChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		time.Sleep(time.Duration(len(outcomes)-i) * time.Millisecond)
		m.ran(c, i+1)
		switch o := outcomes[i].(type) {
		case *record.Trace:
			return o, int64(10 * (i + 1)), nil
		case error:
			return nil, int64(10 * (i + 1)), o
		}
		return nil, int64(10 * (i + 1)), nil
	})
	return scanOutcome{i, got, err, m.steps.Load(), m.schedules.Load()}
}

// A candidate whose check fails ends a scan where a sequential scan would
// end, with that error, whatever the number of workers; a success before it
// wins over it. Neither the error nor the schedules and steps counted depend
// on the workers: speculative checks after the deciding candidate do not
// count.
func TestScanErrorsAndStatsDoNotDependOnWorkers(t *testing.T) {
	boom := errors.New("boom")
	win := &record.Trace{}
	for _, tc := range []struct {
		name     string
		outcomes []any
		want     scanOutcome
	}{
		{"error before success", []any{nil, nil, boom, nil, win, nil}, scanOutcome{2, nil, boom, 10 + 20 + 30, 1 + 2 + 3}},
		{"success before error", []any{nil, win, nil, boom, nil}, scanOutcome{1, win, nil, 10 + 20, 1 + 2}},
		{"none", []any{nil, nil, nil}, scanOutcome{-1, nil, nil, 60, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, j := range []int{1, 3} {
				got := scanWith(t, j, tc.outcomes)
				require.Equal(t, tc.want.index, got.index, "-j %d", j)
				require.Same(t, tc.want.trace, got.trace, "-j %d", j)
				require.ErrorIs(t, got.err, tc.want.err, "-j %d", j)
				if tc.want.err == nil {
					require.NoError(t, got.err, "-j %d", j)
				}
				require.Equal(t, tc.want.steps, got.steps, "-j %d: steps", j)
				require.Equal(t, tc.want.schedules, got.schedules, "-j %d: schedules", j)
			}
		})
	}
}
