package cli_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUserBinaryIsLean checks that the demi command, and so every binary a
// user builds with cli.Main, links no test, plotting or peer package: the
// evaluation harness and its dependencies belong to cmd/demi-eval. It asks
// the go command, so re-adding such an import anywhere below cli fails it.
func TestUserBinaryIsLean(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for _, pkg := range []string{"github.com/demi-project/demi/cmd/demi", "github.com/demi-project/demi/cli"} {
		out, err := exec.Command(gobin, "list", "-deps", pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s: %s", pkg, out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, pkg, "go list listed the package itself")
		var banned []string
		for _, d := range deps {
			if d == "testing" || strings.HasPrefix(d, "testing/") ||
				strings.HasPrefix(d, "pgregory.net/rapid") || strings.HasPrefix(d, "gonum.org/") ||
				d == "github.com/demi-project/demi/eval" || strings.HasPrefix(d, "github.com/demi-project/demi/peer/") {
				banned = append(banned, d)
			}
		}
		assert.Empty(t, banned, "%s must not depend on the test, plotting or peer packages", pkg)
	}
}
