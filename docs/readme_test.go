package docs_test

import (
	"fmt"
	"github.com/demi-project/demi/examples"
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

// TestReadmeNamesEverySystem checks the README's sentence on demi systems
// against the catalog of cmd/demi: every system, with its number of bug
// switches.
func TestReadmeNamesEverySystem(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	prose := strings.Join(strings.Fields(string(readme)), " ")
	_, sentence, ok := strings.Cut(prose, "`demi systems` lists the systems this binary knows")
	require.True(t, ok)
	sentence, _, _ = strings.Cut(sentence, ").")
	words := map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
	for _, sys := range examples.Catalog().Systems() {
		assert.Contains(t, sentence, "`"+sys.Name+"`", "the README's demi systems sentence leaves out %s", sys.Name)
		bugs := 0
		for _, o := range sys.Options {
			if o.Bug {
				bugs++
			}
		}
		if w, ok := words[bugs]; ok && sys.Name != "tokenring" {
			assert.Regexp(t, "`"+sys.Name+"`[^`]* "+w+" ", sentence, "%s has %d bug switches", sys.Name, bugs)
		}
	}
}
