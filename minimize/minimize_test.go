package minimize_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/require"
)

// failing returns a tokenring trace that violates with bug on.
func failing(t *testing.T, opts record.Options, minDeliveries int) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, opts, record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: minDeliveries})
	require.NoError(t, err)
	require.NotNil(t, tr, "no violation found for %v", opts)
	return sys, tr
}

func TestMinimizeTokenring(t *testing.T) {
	for _, tc := range []struct {
		opts     record.Options
		strategy string
	}{
		{record.Options{"restore-token": "true"}, "tfb"},
		{record.Options{"panic-on-lap": "true", "size": "6"}, "tfb"},
		{record.Options{"restore-token": "true"}, "sts"},
		{record.Options{"restore-token": "true"}, "nodiverge"},
	} {
		t.Run(tc.opts.String()+"/"+tc.strategy, func(t *testing.T) {
			sys, tr := failing(t, tc.opts, 12)
			res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 20 * time.Second, Strategy: tc.strategy, Workers: 2})
			require.NoError(t, err)
			for _, s := range res.Stages {
				t.Logf("%-16s %5d deliveries %3d externals %6d schedules %.3fs", s.Name, s.Deliveries, s.Externals, s.Schedules, s.Seconds)
			}
			require.Equal(t, tr.Header.Violation.Fingerprint, res.Trace.Header.Violation.Fingerprint)
			rep, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			require.True(t, rep.Reproduced)
			require.LessOrEqual(t, res.Trace.Header.Deliveries, tr.Header.Deliveries)
			if tc.strategy == "tfb" {
				for _, e := range res.Trace.Events {
					t.Log(e.String())
				}
			}
		})
	}
}
