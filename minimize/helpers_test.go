package minimize

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

func tokenTrace(t *testing.T) (*record.System, *record.Trace) {
	t.Helper()
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{"restore-token": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 600, MaxExternals: 40}, Runs: 200, MinDeliveries: 20})
	require.NoError(t, err)
	require.NotNil(t, tr)
	return sys, tr
}
