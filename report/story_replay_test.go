package report_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
)

// A trace whose delivery names a message that is not pending does not
// replay: Build says so and where, and does not panic.
func TestBuildTraceThatDoesNotReplay(t *testing.T) {
	bugs := shippedMin(t)
	require.NotEmpty(t, bugs)
	file := bugs[0] + ".min.trace"
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, file), catalog())
	require.NoError(t, err)
	k := -1
	for i, e := range tr.Events {
		if e.Kind == record.Deliver {
			k = i
			break
		}
	}
	require.GreaterOrEqual(t, k, 0, "the trace has a delivery")
	tr.Events[k].ID = 1 << 30
	_, err = report.Build(context.Background(), file, sys, tr)
	require.ErrorContains(t, err, fmt.Sprintf("trace does not replay: diverged at event %d: expected deliver #%d", k, 1<<30))
}
