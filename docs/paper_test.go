package docs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/demi-project/demi/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMinimizationPageQuotesThePaper checks the paper's figures that
// docs/minimization.md sets beside demi's: computed from the paper's table
// over the seven Raft bugs the page measures.
func TestMinimizationPageQuotesThePaper(t *testing.T) {
	raw, err := os.ReadFile("minimization.md")
	require.NoError(t, err)
	f := eval.PaperFiguresFor([]string{"raft-45", "raft-46", "raft-56", "raft-58a", "raft-58b", "raft-42", "raft-66"})
	require.Len(t, f.Bugs, 7)
	want := fmt.Sprintf("paper's median %.2f and worst %.2f (%s) TFB/Optimal over the same seven bugs",
		f.MedianTFBOverOptimal, f.WorstTFBOverOptimal, f.WorstBug)
	assert.Contains(t, strings.Join(strings.Fields(string(raw)), " "), want)
}
