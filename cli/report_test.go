package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportWritesOnePage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	code, stdout, errs := run(t, "report", shippedMin, "--stats", "../report/testdata/raft-45.stats.json", "-o", out)
	require.Equal(t, 0, code, errs)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("wrote %s (%d bytes): 5 actors, 21 events\n", out, len(page)), stdout)
	assert.True(t, strings.HasPrefix(string(page), "<!doctype html>"))
	for _, banned := range []string{"<script src", "<link", "@import", "url(http", `src="http`} {
		assert.NotContains(t, string(page), banned, "the page loads nothing")
	}
	assert.Equal(t, 30, strings.Count(string(page), "<tr><td>"), "one row per minimization stage")
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"-o is the input":   {"report", shippedMin, "-o", shippedMin},
		"no such directory": {"report", shippedMin, "-o", filepath.Join(dir, "nope", "r.html")},
		"-o is a directory": {"report", shippedMin, "-o", dir},
		"stats missing":     {"report", shippedMin, "--stats", filepath.Join(dir, "none.json"), "-o", filepath.Join(dir, "r.html")},
		"stats not json":    {"report", shippedMin, "--stats", shippedMin, "-o", filepath.Join(dir, "r.html")},
		"trace missing":     {"report", filepath.Join(dir, "none.trace"), "-o", filepath.Join(dir, "r.html")},
	} {
		code, out, errs := run(t, args...)
		assert.Equal(t, 2, code, name)
		assert.Empty(t, out, name)
		assert.True(t, strings.HasPrefix(errs, "demi: "), name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written on bad input")
}
