// Package docs_test checks that what users read in README.md and docs/*.md
// is what demi prints. Every fenced block of a page that starts with a
// shell prompt ("$ go run ./cmd/demi ...") is a shown output: the test runs
// the command in-process (cli.Run, in a scratch directory that sees the
// shipped examples), masks what depends on timing or -j, and compares the
// result with a golden file in testdata/ and the golden file with the
// block. A block preceded by the line "<!-- generated: NAME -->" is produced
// by the generator NAME instead (generators_test.go).
//
// After a change to what demi prints:
//
//	go test ./docs -update
//
// rewrites the golden files and every shown block from them, except blocks
// that elide lines (a line "..." or "…", or a table row holding only "…"),
// which the test still checks against the golden file and asks to be
// edited by hand.
package docs_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and the shown blocks of the pages from the actual outputs")

// pages are the documents whose shown outputs are checked, relative to
// this directory.
func pages(t *testing.T) []string {
	t.Helper()
	here, err := os.Getwd()
	require.NoError(t, err)
	docs, err := filepath.Glob(filepath.Join(here, "*.md"))
	require.NoError(t, err)
	return append([]string{filepath.Join(filepath.Dir(here), "README.md")}, docs...)
}

// block is a fenced block of a page.
type block struct {
	start, end int      // lines of the page: the first and last line inside the fence
	lines      []string // the lines inside the fence
	generator  string   // the NAME of a preceding "<!-- generated: NAME -->"
}

// text is the block's content, newline-terminated.
func (b block) text() string { return strings.Join(b.lines, "\n") + "\n" }

// shown reports whether the block is checked: generated, or a shell session.
func (b block) shown() bool {
	return b.generator != "" || (len(b.lines) > 0 && strings.HasPrefix(b.lines[0], "$ "))
}

// blocks returns the fenced blocks of a page's lines.
func blocks(lines []string) ([]block, error) {
	var out []block
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := block{start: i + 1}
		if i > 0 {
			if name, ok := strings.CutPrefix(strings.TrimSpace(lines[i-1]), "<!-- generated: "); ok {
				b.generator = strings.TrimSpace(strings.TrimSuffix(name, "-->"))
			}
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: the fence is never closed", i+1)
		}
		b.end, b.lines = j-1, lines[i+1:j]
		out = append(out, b)
		i = j
	}
	return out, nil
}

// goldenName is the golden file of the n-th shown block (from 1) of page.
func goldenName(testdata, page string, n int, b block) string {
	base := strings.TrimSuffix(filepath.Base(page), ".md")
	if b.generator != "" {
		return filepath.Join(testdata, base+"-"+b.generator+".golden")
	}
	return filepath.Join(testdata, fmt.Sprintf("%s-%d.golden", base, n))
}

// TestShownOutputs runs every shown block of every page, compares the
// output with its golden file, and the golden file with the block.
func TestShownOutputs(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	require.NoError(t, err)
	for _, page := range pages(t) {
		t.Run(filepath.Base(page), func(t *testing.T) {
			raw, err := os.ReadFile(page)
			require.NoError(t, err)
			lines := strings.Split(string(raw), "\n")
			bs, err := blocks(lines)
			require.NoError(t, err)
			s := newSession(t)
			n, rewrites := 0, map[int]block{}
			for i, b := range bs {
				if !b.shown() {
					continue
				}
				n++
				golden := goldenName(testdata, page, n, b)
				var got string
				if b.generator != "" {
					gen, ok := generators[b.generator]
					require.True(t, ok, "%s line %d: no generator %q", page, b.start, b.generator)
					got = gen(t, s)
				} else {
					got = s.runBlock(t, page, b)
				}
				if *update {
					require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "go test ./docs -update writes it")
				assert.Equal(t, string(want), got, "%s: the output of the block at %s line %d changed; if that is intended, go test ./docs -update", golden, page, b.start)
				if matches(b.lines, strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")) {
					continue
				}
				if *update && !elides(b.lines) {
					rewrites[i] = block{start: b.start, end: b.end, lines: strings.Split(strings.TrimSuffix(got, "\n"), "\n")}
					continue
				}
				assert.Equal(t, string(want), b.text(), "%s line %d shows something else than %s (edit the page, or go test ./docs -update)", page, b.start, golden)
			}
			if len(rewrites) > 0 {
				require.NoError(t, os.WriteFile(page, []byte(rewrite(lines, bs, rewrites)), 0o644))
			}
		})
	}
}

// rewrite replaces the blocks of lines that rewrites names.
func rewrite(lines []string, bs []block, rewrites map[int]block) string {
	var out []string
	next := 0
	for i, b := range bs {
		nb, ok := rewrites[i]
		if !ok {
			continue
		}
		out = append(out, lines[next:b.start]...)
		out = append(out, nb.lines...)
		next = b.end + 1
	}
	out = append(out, lines[next:]...)
	return strings.Join(out, "\n")
}

// isElision reports whether a shown line stands for lines left out: "...",
// "…", or a table row whose only content is "…".
func isElision(line string) bool {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "│|"))
	if s == "..." || s == "…" {
		return true
	}
	cells := strings.FieldsFunc(strings.TrimSpace(line), func(r rune) bool { return r == '│' })
	if len(cells) < 2 || strings.TrimSpace(cells[0]) != "…" {
		return false
	}
	for _, c := range cells[1:] {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func elides(lines []string) bool {
	for _, l := range lines {
		if isElision(l) {
			return true
		}
	}
	return false
}

// matches reports whether shown equals full, where an elision line of
// shown stands for one or more lines of full.
func matches(shown, full []string) bool {
	if len(shown) == 0 {
		return len(full) == 0
	}
	if isElision(shown[0]) {
		for k := 1; k <= len(full); k++ {
			if matches(shown[1:], full[k:]) {
				return true
			}
		}
		return false
	}
	return len(full) > 0 && shown[0] == full[0] && matches(shown[1:], full[1:])
}

func TestMatches(t *testing.T) {
	full := []string{"a", "b", "c", "d"}
	cases := []struct {
		shown []string
		want  bool
	}{
		{[]string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, true},
		{[]string{"a", "…"}, true},
		{[]string{"...", "c", "d"}, true},
		{[]string{"a", "...", "b", "c", "d"}, false}, // an elision stands for at least one line
		{[]string{"a", "b", "c"}, false},
		{[]string{"a", "b", "x", "d"}, false},
		{[]string{"a", "│ …   │      │   │", "d"}, true},
		{[]string{"a", "│ …   │ 12   │   │", "d"}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, matches(c.shown, full), "%q", c.shown)
	}
}
