// Package realbugstest holds the checks the nested modules of
// examples/realbugs share in their tests: which library release a module
// builds, the blocks of docs/real-bugs.md that show a command's output,
// and how close default minimization gets to a hand-built reference. It is internal to examples/realbugs: the modules there may
// import it (their paths are below it), nothing else.
package realbugstest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// Release returns the version of module that the module of the current
// directory builds (go list -m), and fails t if a replace directive
// points it anywhere: a real bug is reproduced with the release the
// module proxy serves, unmodified.
func Release(t testing.TB, module string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(gobin, "list", "-m", "-f", "{{.Version}} {{.Replace}}", module).CombinedOutput()
	require.NoError(t, err, string(out))
	version, replace, ok := bytes.Cut(bytes.TrimSpace(out), []byte(" "))
	require.True(t, ok, string(out))
	require.Equal(t, "<nil>", string(replace), "%s is replaced", module)
	return string(version)
}

// DocsBlock checks that the block of page between "<!-- golden NAME …
// -->" and "<!-- end golden -->" is got, or with update rewrites it.
func DocsBlock(t testing.TB, page, name, got string, update bool) {
	t.Helper()
	block := regexp.MustCompile("(?s)(<!-- golden " + regexp.QuoteMeta(name) + "[^\n]*-->\n```\n)(.*?)(```\n<!-- end golden -->)")
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	m := block.FindSubmatch(raw)
	require.NotNil(t, m, "%s has no golden block %s", page, name)
	if update {
		raw = block.ReplaceAll(raw, append(append(append([]byte{}, m[1]...), bytes.ReplaceAll([]byte(got), []byte("$"), []byte("$$"))...), m[3]...))
		require.NoError(t, os.WriteFile(page, raw, 0o644))
		return
	}
	require.Equal(t, got, string(m[2]), "%s: block %s differs (go test -update)", page, name)
}

// FuzzFindsNothing runs `demi fuzz` with args (and -o into a temporary
// directory) on sys and fails t unless it ends finding no violation (exit
// 1, "no violation"): the fixed release's side of a reproduced bug.
func FuzzFindsNothing(t testing.TB, sys *record.System, args ...string) {
	t.Helper()
	args = append(append([]string{"fuzz"}, args...), "-o", filepath.Join(t.TempDir(), "none.trace"))
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), record.NewCatalog(sys), args, &stdout, &stderr)
	require.Equal(t, 1, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	require.Contains(t, stderr.String(), "no violation", stderr.String())
}

// MinimizeWithinTarget minimizes the fuzz trace at fuzzPath on sys with
// default settings and fails t unless the result breaks the same invariant
// (the fuzz trace's fingerprint) with at most 1.25 times the deliveries
// and the events of the reference trace at refPath. It returns the
// result's header for the caller's own checks.
func MinimizeWithinTarget(t testing.TB, sys *record.System, fuzzPath, refPath string) record.Header {
	t.Helper()
	cat := record.NewCatalog(sys)
	tr, sys, err := record.ReadFile(fuzzPath, cat)
	require.NoError(t, err)
	ref, _, err := record.ReadFile(refPath, cat)
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{})
	require.NoError(t, err)
	got := res.Trace.Header
	require.Equal(t, tr.Header.Violation.Fingerprint, got.Violation.Fingerprint)
	require.LessOrEqual(t, 4*got.Deliveries, 5*ref.Header.Deliveries, "more than 1.25 times the reference's deliveries")
	require.LessOrEqual(t, 4*len(res.Trace.Events), 5*len(ref.Events), "more than 1.25 times the reference's events")
	return got
}
