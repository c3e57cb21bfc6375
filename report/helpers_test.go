package report_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const tracesDir = "../examples/traces"

func catalog() *record.Catalog {
	return record.NewCatalog(tokenring.System(), raft.System(), spark.System())
}

// shippedMin lists the shipped minimized traces of the raft example, by
// bug name.
func shippedMin(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(tracesDir, "raft-*.min.trace"))
	require.NoError(t, err)
	require.Len(t, files, len(raft.BugNames()), "one minimized trace per bug")
	var bugs []string
	for _, f := range files {
		bugs = append(bugs, strings.TrimSuffix(filepath.Base(f), ".min.trace"))
	}
	return bugs
}

// story builds the story of a shipped trace, named by its file name.
func story(t *testing.T, file string) *report.Story {
	t.Helper()
	tr, sys, err := record.ReadFile(filepath.Join(tracesDir, file), catalog())
	require.NoError(t, err)
	st, err := report.Build(context.Background(), file, sys, tr)
	require.NoError(t, err)
	// As cli sets them for stock demi (cli.Demi).
	st.Program, st.Install = "demi", "go install ./cmd/demi   # in a checkout of github.com/demi-project/demi"
	return st
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./report -update to create it")
	require.Equal(t, string(want), string(got), "%s differs; if the change is intended, run go test ./report -update", path)
}

func render(t *testing.T, f func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, f(&b))
	return b.Bytes()
}
