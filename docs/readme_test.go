package docs_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeProseMatchesItsOutputs checks the numbers the README's prose
// quotes from the main job against the minimize output it shows (the golden
// file of its first block): the input's size and the result's deliveries.
func TestReadmeProseMatchesItsOutputs(t *testing.T) {
	golden, err := os.ReadFile("testdata/README-1.golden")
	require.NoError(t, err)
	summary := regexp.MustCompile(`: (\d+) deliveries and (\d+) externals → (\d+) deliveries and (\d+) externals`).FindStringSubmatch(string(golden))
	require.NotNil(t, summary, "the minimize summary line of README-1.golden")
	n := func(s string) int {
		v, err := strconv.Atoi(s)
		require.NoError(t, err)
		return v
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	prose := strings.Join(strings.Fields(string(readme)), " ")
	assert.Contains(t, prose, fmt.Sprintf("it hands back the %d deliveries that still break it", n(summary[3])))
	assert.Contains(t, prose, fmt.Sprintf("%s deliveries and %d external events, found by", thousandsInt(n(summary[1])), n(summary[2])))
}
