package minimize_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/demi-project/demi/minimize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackageDocListsEveryPass checks that the package doc (minimize.go)
// lists the pass table, in order, each pass with its tier and capability,
// and that the Stage constants of stages.go are the table's passes plus
// initial and final.
func TestPackageDocListsEveryPass(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "minimize.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	item := regexp.MustCompile(`(?m)^\s*- ([a-z-]+) \(([a-z]+)(?:; needs ([^)]+))?\):`)
	var listed, want []string
	for _, m := range item.FindAllStringSubmatch(f.Doc.Text(), -1) {
		listed = append(listed, m[1]+" "+m[2]+" "+firstWord(m[3]))
	}
	for _, p := range minimize.Passes() {
		want = append(want, p.Name+" "+p.Tier.String()+" "+firstWord(p.Needs))
	}
	assert.Equal(t, want, listed, "the package doc's passes: name, tier, capability")

	consts := stageConstants(t)
	var values []string
	for _, v := range consts {
		values = append(values, v)
	}
	var names []string
	for _, p := range minimize.Passes() {
		names = append(names, p.Name)
	}
	names = append(names, minimize.StageInitial, minimize.StageFinal)
	assert.ElementsMatch(t, names, values, "the Stage constants are the passes, initial and final")
}

// TestPassOf checks that a call's row maps back to its pass.
func TestPassOf(t *testing.T) {
	for row, want := range map[string]string{
		"ddmin-internals-3":      "ddmin-internals",
		"ddmin-externals-wild":   "ddmin-externals-wild",
		"ddmin-externals-wild-2": "ddmin-externals-wild",
		"one-at-a-time":          "one-at-a-time",
		"final":                  "final",
	} {
		assert.Equal(t, want, minimize.PassOf(row), row)
	}
	_, err := minimize.ParsePasses("-gather,-late-start")
	require.NoError(t, err)
	_, err = minimize.ParsePasses("-nope")
	require.ErrorContains(t, err, `unknown pass "nope"`)
	_, err = minimize.ParsePasses("gather")
	require.ErrorContains(t, err, "write -NAME")
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

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
