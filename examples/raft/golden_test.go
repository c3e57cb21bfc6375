package raft_test

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden blocks of docs/go-test.md")

const goTestDoc = "../../docs/go-test.md"

// golden checks the block named name of docs/go-test.md, between
// "<!-- golden NAME ... -->" and "<!-- end golden -->", against got (or
// rewrites it with -update). A block whose last line is "..." shows only
// the beginning of the output (as many lines as it has).
func golden(t *testing.T, name, got string) {
	t.Helper()
	data, err := os.ReadFile(goTestDoc)
	require.NoError(t, err)
	re := regexp.MustCompile("(?s)(<!-- golden " + regexp.QuoteMeta(name) + "[ :][^\n]*-->\n```\n)(.*?)(```\n<!-- end golden -->)")
	m := re.FindSubmatchIndex(data)
	require.NotNil(t, m, "no golden block %q in %s", name, goTestDoc)
	got = strings.TrimRight(got, "\n") + "\n"
	want := string(data[m[4]:m[5]])
	if *update {
		if prefix, ok := strings.CutSuffix(want, "...\n"); ok {
			n := strings.Count(prefix, "\n")
			got = strings.Join(strings.SplitAfter(got, "\n")[:n], "") + "...\n"
		}
		out := string(data[:m[4]]) + got + string(data[m[5]:])
		require.NoError(t, os.WriteFile(goTestDoc, []byte(out), 0o644))
		return
	}
	if prefix, ok := strings.CutSuffix(want, "...\n"); ok {
		assert.True(t, strings.HasPrefix(got, prefix), "docs/go-test.md block %q:\nwant prefix:\n%s\ngot:\n%s", name, prefix, got)
		return
	}
	assert.Equal(t, want, got, "docs/go-test.md block %q (go test ./examples/raft -run TestTheRegressionLoop -update rewrites it)", name)
}

// asIfKept shows a message of a test whose traces were kept in dir as it
// reads for the TestElections of docs/go-test.md, kept in
// examples/raft/testdata/demi/TestElections.
func asIfKept(msg, dir string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		where := "testdata/demi/TestElections" // as the package's test sees it
		if strings.Contains(l, "go run ") {
			where = "examples/raft/testdata/demi/TestElections" // from the module root
		}
		lines[i] = strings.ReplaceAll(l, dir, where)
	}
	return strings.Join(lines, "\n")
}
