package minimize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExternalUnits(t *testing.T) {
	sys, tr := tokenTrace(t)
	_ = sys
	units := externalUnits(tr.Events)
	seen := map[int]bool{}
	for _, u := range units {
		require.NotEmpty(t, u)
		first := tr.Events[u[0]]
		require.NotContains(t, []string{"wait-quiescence", "wait-condition"}, first.Kind.String(),
			"a wait marker travels with the event before it")
		for _, i := range u {
			require.True(t, tr.Events[i].Kind.IsExternal())
			require.False(t, seen[i], "event %d in two units", i)
			seen[i] = true
		}
	}
	require.Len(t, seen, tr.Header.Externals)
}
