package docs_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMinimizationPageListsEveryStage checks that the stage table of
// docs/minimization.md has one row per stage of the pipeline, in order.
func TestMinimizationPageListsEveryStage(t *testing.T) {
	raw, err := os.ReadFile("minimization.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|")
	var rows []string
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		rows = append(rows, m[1])
	}
	assert.Equal(t, append(minimize.FirstPass(), minimize.StageFinal), rows,
		"the rows of the stage table (the rounds row, `…-2`, is not a stage name)")
}
