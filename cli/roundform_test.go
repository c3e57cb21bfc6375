package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// TestMinimizeReportsRoundForm minimizes a shipped minimized Raft trace
// again: the round-form pass runs last, never makes the trace larger, and
// the statistics report the deliveries in round form, which add up.
func TestMinimizeReportsRoundForm(t *testing.T) {
	dir := t.TempDir()
	out, stats := filepath.Join(dir, "r.min.trace"), filepath.Join(dir, "s.json")
	code, _, errs := run(t, "minimize", shippedMin, "-o", out, "--stats", stats, "-j", "2", "--budget", "60s")
	require.Equal(t, 0, code, errs)
	var st struct {
		Stages    []minimize.StageStats `json:"stages"`
		Final     minimize.StageStats   `json:"final"`
		RoundForm *rounds.Totals        `json:"round_form"`
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &st))
	require.NotNil(t, st.RoundForm, "raft messages carry rounds")
	n := len(st.Stages)
	require.Equal(t, minimize.StageRoundForm, st.Stages[n-2].Name)
	before, after := st.Stages[n-3], st.Stages[n-2]
	assert.LessOrEqual(t, after.Deliveries+after.Externals, before.Deliveries+before.Externals, "never larger")
	rf := st.RoundForm
	assert.Equal(t, st.Final.Deliveries, rf.InRoundForm+rf.Residue+rf.NoRound)
	assert.Equal(t, rf.Late+rf.OutOfOrder, rf.Residue)

	// The input's own residue is no smaller.
	tr, sys, err := record.ReadFile(shippedMin, catalog())
	require.NoError(t, err)
	lay, err := rounds.Build(t.Context(), sys, tr)
	require.NoError(t, err)
	assert.LessOrEqual(t, rf.Residue, lay.Totals().Residue)
}
