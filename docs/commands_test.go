package docs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/examples/lock"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// prompts are the command lines a page may show, by prefix, and the
// catalog of systems of the binary they run (nil: a command with no output
// that the test does not run, such as building the binary).
var prompts = []struct {
	prefix  string
	catalog func() *record.Catalog
	program string // the binary's name, as the commands it prints say
}{
	// cmd/demi, run from the root of a checkout.
	{"$ go run ./cmd/demi ", examples.Catalog, "demi"},
	// The binary docs/writing-a-system.md builds: cmd/demi plus the lock
	// system the page writes (examples/lock).
	{"$ ./mydemi ", func() *record.Catalog {
		return record.NewCatalog(lock.System(), raft.System(), tokenring.System())
	}, "mydemi"},
	{"$ go build ", nil, ""},
}

// session is the scratch working directory the blocks of one page run in,
// in order (a block may read what an earlier one wrote). It sees the
// shipped examples/traces/ through one symbolic link per file, so that a
// command that writes there replaces a link, never a shipped file.
type session struct{ dir string }

func newSession(t *testing.T) *session {
	t.Helper()
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "examples", "traces"))
	require.NoError(t, err)
	dst := filepath.Join(dir, "examples", "traces")
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())))
	}
	t.Chdir(dir)
	return &session{dir: dir}
}

// runBlock runs the commands of a shown block and returns the block as it
// should read: each command line followed by its output (stdout; progress
// goes to stderr), masked, with a blank line after each command that printed something.
func (s *session) runBlock(t *testing.T, page string, b block) string {
	t.Helper()
	var out strings.Builder
	printed := false // the last command printed something: a blank line follows
	for i, line := range b.lines {
		if !strings.HasPrefix(line, "$ ") {
			continue
		}
		where := fmt.Sprintf("%s line %d", filepath.Base(page), b.start+i+1)
		p := -1
		for j := range prompts {
			if strings.HasPrefix(line, prompts[j].prefix) {
				p = j
				break
			}
		}
		require.NotEqual(t, -1, p, "%s: a shown command must start with one of the prompts of docs/commands_test.go", where)
		if printed {
			out.WriteString("\n")
		}
		out.WriteString(line + "\n")
		printed = false
		if prompts[p].catalog == nil {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(line, prompts[p].prefix))
		for _, a := range args {
			require.False(t, strings.ContainsAny(a, `"'`), "%s: quoted arguments are not supported", where)
		}
		got := s.run(t, where, prompts[p].catalog(), prompts[p].program, args)
		out.WriteString(mask(got))
		printed = got != ""
	}
	return out.String()
}

// run runs a command line in the session's directory and returns its
// stdout; it fails the test unless the command exits 0.
func (s *session) run(t *testing.T, where string, cat *record.Catalog, program string, args []string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), cat, args, &stdout, &stderr, cli.As(cli.Program{Name: program}))
	require.Equal(t, cli.ExitOK, code, "%s: %s: %s", where, strings.Join(args, " "), stderr.String())
	return stdout.String()
}

// maskedColumns are the table columns whose values depend on the machine,
// the load and -j: a page shows them as maskMark.
var maskedColumns = map[string]bool{"SCHEDULES": true, "SECONDS": true}

// maskMark stands for a value that differs from run to run.
const maskMark = "~"

// mask replaces the cells of maskedColumns in the box-drawn tables of out
// by maskMark, keeping every column's width.
func mask(out string) string {
	lines := strings.Split(out, "\n")
	var masked map[int]bool // columns of the current table to mask
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "┌"), strings.HasPrefix(l, "└"):
			masked = nil
		case strings.HasPrefix(l, "│") && masked == nil:
			masked = map[int]bool{}
			for j, c := range strings.Split(l, "│") {
				if maskedColumns[strings.TrimSpace(c)] {
					masked[j] = true
				}
			}
		case strings.HasPrefix(l, "│") && len(masked) > 0:
			cells := strings.Split(l, "│")
			for j := range cells {
				if masked[j] {
					w := len([]rune(cells[j]))
					cells[j] = " " + maskMark + strings.Repeat(" ", max(w-1-len([]rune(maskMark)), 0))
				}
			}
			lines[i] = strings.Join(cells, "│")
		}
	}
	return strings.Join(lines, "\n")
}
