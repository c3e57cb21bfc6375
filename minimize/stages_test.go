package minimize_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackageDocListsEveryStage checks that the numbered list of stages in
// the package doc (minimize.go) is the pipeline: FirstPass in order, then
// the rounds naming every RoundStages stage "-N", then final; and that
// every Stage constant of stages.go is in it (an item, or named in the
// rounds item).
func TestPackageDocListsEveryStage(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "minimize.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	item := regexp.MustCompile(`(?m)^\s*\d+\. ([^:]+):`)
	var listed []string
	var rounds string
	for _, m := range item.FindAllStringSubmatchIndex(f.Doc.Text(), -1) {
		name := f.Doc.Text()[m[2]:m[3]]
		if strings.HasPrefix(name, "rounds") {
			end := len(f.Doc.Text())
			rounds = f.Doc.Text()[m[3]:end]
			rounds = rounds[:strings.Index(rounds, "\n\n")+1]
			listed = append(listed, "rounds")
			continue
		}
		listed = append(listed, name)
	}
	want := append(minimize.FirstPass(), "rounds", minimize.StageRoundForm, minimize.StageFinal)
	assert.Equal(t, want, listed, "the numbered stages of the package doc")
	for _, s := range minimize.RoundStages() {
		assert.Contains(t, rounds, s+"-N", "the rounds item names every stage a round repeats")
	}

	consts := stageConstants(t)
	require.GreaterOrEqual(t, len(consts), len(minimize.FirstPass())+1, "FirstPass and StageFinal are Stage constants")
	for name, value := range consts {
		inRounds := regexp.MustCompile(`\b` + regexp.QuoteMeta(value) + `(-N)?\b`).MatchString(rounds)
		assert.True(t, slices.Contains(listed, value) || inRounds, "%s (%q) is listed in the package doc", name, value)
	}
}

// stageConstants returns the Stage constants of stages.go, name to value.
func stageConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "stages.go", nil, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Stage") {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				require.True(t, ok, "%s is a string literal", n.Name)
				v, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				out[n.Name] = v
			}
		}
	}
	return out
}
