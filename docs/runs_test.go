package docs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandTime is how long a command of a page runs in TestEveryCommandRuns
// before the test interrupts it (as Ctrl-C would): long enough to check
// its flags, its inputs and its outputs, which every command does before
// any work; the shown outputs (TestShownOutputs) run to the end. A command
// that writes (-o FILE, > FILE) a file a later command of the page reads
// gets neededTime, to finish. (An interrupted minimize writes its best
// trace so far, as Ctrl-C makes it do.)
const (
	commandTime = 2 * time.Second
	neededTime  = 2 * time.Minute
)

// notRun are the command lines of the pages that TestEveryCommandRuns does
// not run, by prefix, and where they are run instead.
var notRun = []struct{ prefix, why string }{
	{"go test ./...", "the whole suite: CI runs it"},
	{"scripts/gen-traces.sh", "regenerates every shipped trace, a long run; the traces' tests check its results byte for byte"},
	{"go get github.com/demi-project/demi@latest", "demi is not on the module proxy yet, as the page says"},
	{"go mod ", "examples/counter/cmd/counter's test runs docs/your-own-module.md's commands as written"},
	{"go build -o counter ", "examples/counter/cmd/counter's test"},
	{"./counter ", "examples/counter/cmd/counter's test"},
	{"cd ", "a nested module (docs/real-bugs.md): .ci/run tests it, and the lines after a cd run there"},
	{"go list -m ", "docs/real-bugs.md's nested modules: .ci/run tests them"},
	{"go tool pprof ", "reads the profile the benchmark before it writes"},
	{"for f in ", "a loop over the shipped traces; examples_test.go replays each"},
	{"parallel ", "GNU parallel, over ssh (docs/campaigns.md): .ci/run's scripts/campaign-test.sh runs a 4-shard campaign under parallel and triages it"},
	{"demi triage campaign/shard", "triages what the parallel line before it wrote: scripts/campaign-test.sh"},
}

// pageCommand is one command line of a page's sh block.
type pageCommand struct {
	page, line string
	at         int
	// cd is set after a cd line of the same block: the command runs in
	// another directory (a nested module, with its own binary).
	cd bool
}

// pageCommands returns the command lines of the sh blocks of a page, with
// continuation lines joined and trailing comments cut.
func pageCommands(t *testing.T, page string) []pageCommand {
	t.Helper()
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	bs, err := blocks(lines)
	require.NoError(t, err)
	var out []pageCommand
	for _, b := range bs {
		if lines[b.start-1] != "```sh" {
			continue
		}
		cd := false
		for i := 0; i < len(b.lines); i++ {
			at := b.start + i + 1
			line := b.lines[i]
			for strings.HasSuffix(strings.TrimSpace(line), `\`) && i+1 < len(b.lines) {
				i++
				line = strings.TrimSuffix(strings.TrimSpace(line), `\`) + " " + strings.TrimSpace(b.lines[i])
			}
			if c, _, ok := strings.Cut(line, " #"); ok {
				line = c
			}
			if line = strings.Join(strings.Fields(line), " "); line != "" {
				out = append(out, pageCommand{page: filepath.Base(page), line: line, at: at, cd: cd})
				cd = cd || strings.HasPrefix(line, "cd ")
			}
		}
	}
	return out
}

// goDoc finds the go doc commands a page names in inline code.
var goDoc = regexp.MustCompile("`(go doc [^`]+)`")

// TestEveryCommandRuns runs every command line of the pages' sh blocks
// (demi's own in-process, in a scratch directory that sees the shipped
// traces, for at most commandTime each, in the page's order) and every go
// doc command they name: none may exit with bad input (2). A go test line
// must name a package that exists and tests its -run pattern matches.
func TestEveryCommandRuns(t *testing.T) {
	for _, page := range pages(t) {
		t.Run(filepath.Base(page), func(t *testing.T) {
			raw, err := os.ReadFile(page)
			require.NoError(t, err)
			for _, m := range goDoc.FindAllStringSubmatch(string(raw), -1) {
				args := strings.Fields(m[1])
				cmd := exec.Command("go", args[1:]...)
				cmd.Dir = ".."
				out, err := cmd.CombinedOutput()
				assert.NoError(t, err, "%s names `%s`, which fails: %s", filepath.Base(page), m[1], out)
			}
			cmds := pageCommands(t, page)
			if len(cmds) == 0 {
				return
			}
			root, err := filepath.Abs("..")
			require.NoError(t, err)
			newSession(t)
			for i, c := range cmds {
				limit := commandTime
				for _, later := range cmds[i+1:] {
					if out := written(c.line); out != "" && strings.Contains(later.line, out) {
						limit = neededTime
					}
				}
				runPageCommand(t, root, page, c, limit)
			}
		})
	}
}

// written is the file a command line writes with -o or >, or "".
func written(line string) string {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-o" || f[i] == ">" {
			return f[i+1]
		}
	}
	return ""
}

func runPageCommand(t *testing.T, root, page string, c pageCommand, limit time.Duration) {
	t.Helper()
	where := fmt.Sprintf("%s line %d: %s", c.page, c.at, c.line)
	if c.cd {
		return // in the directory a cd line of the block moved to (see notRun)
	}
	for _, n := range notRun {
		if strings.HasPrefix(c.line, n.prefix) {
			return
		}
	}
	if rest, ok := strings.CutPrefix(c.line, "go test "); ok {
		goTestLine(t, root, page, where, strings.Fields(rest))
		return
	}
	var args []string
	switch {
	case strings.HasPrefix(c.line, "demi "):
		args = strings.Fields(strings.TrimPrefix(c.line, "demi "))
	case strings.HasPrefix(c.line, "go run ./cmd/demi "):
		args = strings.Fields(strings.TrimPrefix(c.line, "go run ./cmd/demi "))
	default:
		t.Errorf("%s: a command the test does not know how to run (add it to notRun with where it runs, or make it a demi command)", where)
		return
	}
	var stdoutFile string
	if i := slices.Index(args, ">"); i >= 0 {
		require.Len(t, args, i+2, where)
		stdoutFile, args = args[i+1], args[:i]
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, examples.Catalog(), args, &stdout, &stderr)
	assert.Contains(t, []int{cli.ExitOK, cli.ExitNotFound, cli.ExitInterrupted}, code,
		"%s: exit %d: %s", where, code, stderr.String())
	if stdoutFile != "" {
		require.NoError(t, os.WriteFile(stdoutFile, stdout.Bytes(), 0o644))
	}
}

// goTestLine checks a go test line of a page: its packages exist, and its
// -run pattern (its first part, for a subtest pattern) matches a test,
// example or benchmark of the package, or one the page itself writes.
func goTestLine(t *testing.T, root, page, where string, args []string) {
	t.Helper()
	var pkgs []string
	run := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-run" && i+1 < len(args):
			run = strings.Trim(args[i+1], `'"`)
			i++
		case strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, a)
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "./"):
			if a != "-v" && a != "-race" && a != "-update" {
				i++ // a flag's value: -bench X, -benchtime 2s, -o file
			}
		}
	}
	require.NotEmpty(t, pkgs, "%s: no package", where)
	for _, p := range pkgs {
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/...")))
		st, err := os.Stat(dir)
		if !assert.NoError(t, err, "%s: no package %s", where, p) || !st.IsDir() {
			continue
		}
		if run == "" || run == "^$" {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		var src strings.Builder
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			src.Write(b)
		}
		re, err := regexp.Compile(strings.Split(run, "/")[0])
		require.NoError(t, err, where)
		// The page may write the test itself (docs/go-test.md does).
		pageText, err := os.ReadFile(page)
		require.NoError(t, err)
		src.Write(pageText)
		found := false
		for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark)\w*)\(`).FindAllStringSubmatch(src.String(), -1) {
			if re.MatchString(m[1]) {
				found = true
			}
		}
		assert.True(t, found, "%s: no test of %s matches -run %s", where, p, run)
	}
}
