package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cited finds what a page cites as a file of the repository: a link
// target, or a path (a name with a slash) that ends in a file extension or
// is in backquotes.
var cited = regexp.MustCompile("\\]\\(([^)#\\s]+)[^)]*\\)|`(\\.?/?[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*)`|" +
	"(?:^|[\\s(])((?:[A-Za-z0-9_-]+/)+[A-Za-z0-9_.-]+\\.(?:go|md|sh|txt|json|trace))\\b")

// outputBlock is the output of a test that a page shows between
// "<!-- golden NAME -->" and "<!-- end golden -->" (kept equal to it by that
// test, see docs/go-test.md): the paths in it are the test's, not the
// repository's.
var outputBlock = regexp.MustCompile("(?s)<!-- golden .*?<!-- end golden -->")

// TestCitedPathsExist checks that every file or directory a page cites
// exists in the repository (paths relative to the page for links, to the
// repository root for backquoted paths).
func TestCitedPathsExist(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	topLevel := map[string]bool{}
	for _, e := range entries {
		topLevel[e.Name()] = true
	}
	for _, page := range pages(t) {
		raw, err := os.ReadFile(page)
		require.NoError(t, err)
		raw = outputBlock.ReplaceAll(raw, nil)
		for _, m := range cited.FindAllStringSubmatch(string(raw), -1) {
			var path string
			switch {
			case m[1] != "":
				if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
					continue
				}
				path = filepath.Join(filepath.Dir(page), m[1])
			case m[3] != "":
				path = filepath.Join(root, m[3])
			default:
				if first, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(m[2], "./"), "/"), "/"); !topLevel[first] {
					continue // not a path in the repository (a benchmark name, a date)
				}
				if strings.HasPrefix(m[2], "github.com/") || strings.HasPrefix(m[2], "go.etcd.io/") ||
					strings.HasPrefix(m[2], "pgregory.net/") || strings.HasPrefix(m[2], "golang.org/") {
					continue // a Go import path
				}
				path = filepath.Join(root, strings.TrimSuffix(m[2], "..."))
			}
			_, err := os.Stat(path)
			assert.NoError(t, err, "%s cites %s", filepath.Base(page), m[0])
		}
	}
}
