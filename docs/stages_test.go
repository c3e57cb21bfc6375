package docs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/require"
)

// passTable renders the pass table of docs/minimization.md from
// minimize.Passes: one row per pass, in table order, between the input's
// replay and the result's.
func passTable() string {
	var b strings.Builder
	b.WriteString("| pass | tier | needs | share | what it does |\n|---|---|---|---|---|\n")
	b.WriteString("| `initial` | – | – | – | exact replay of the input; it must reproduce its violation (exit 1 otherwise); on traces of 5,000 deliveries or more the shortest window before the violation that reproduces it is the proof instead (\"Long traces\", below) |\n")
	for _, p := range minimize.Passes() {
		needs := "–"
		if p.Needs != "" {
			needs = "`" + p.Needs + "`"
		}
		once := ""
		if p.Once {
			once = " (once)"
		}
		if p.Whole {
			once += " (whole scan: not stopped on stall)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %g | %s%s |\n", p.Name, p.Tier, needs, p.Share, p.Doc, once)
	}
	b.WriteString("| `final` | – | – | – | exact replay of the result; it must reproduce the violation before anything is written |\n")
	return b.String()
}

// TestMinimizationPageListsEveryPass checks that docs/minimization.md
// holds the pass table as minimize.Passes gives it.
func TestMinimizationPageListsEveryPass(t *testing.T) {
	raw, err := os.ReadFile("minimization.md")
	require.NoError(t, err)
	want := passTable()
	require.True(t, strings.Contains(string(raw), want),
		"docs/minimization.md must hold the pass table exactly as minimize.Passes gives it:\n%s", want)
}
