package docs_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/examples/etcdraft"
)

// etcdraftRows returns the rows of docs/examples.md's tables that have n
// cells and whose first cell is an etcdraft bug switch, by bug.
func etcdraftRows(t *testing.T, n int) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("examples.md")
	require.NoError(t, err)
	bugs := map[string]bool{}
	for _, b := range etcdraft.BugNames() {
		bugs[b] = true
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != n || !bugs[strings.TrimSpace(cells[0])] {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[cells[0]] = cells
	}
	return rows
}

// TestEtcdraftTracesTable checks docs/examples.md's table of etcdraft
// shipped traces against the files: the seed and options of the fuzz
// search, the sizes of the fuzz, reference and minimized traces, the
// violation; and the reference and "hooks" columns of the table with and
// without the hooks.
func TestEtcdraftTracesTable(t *testing.T) {
	cat := examples.Catalog()
	rows := etcdraftRows(t, 6)
	require.Len(t, rows, len(etcdraft.BugNames()))
	hooks := etcdraftRows(t, 4)
	require.Len(t, hooks, len(etcdraft.BugNames()))
	seed := regexp.MustCompile(`seed:? (\d+)\)$`)
	for _, c := range etcdraft.ShippedFuzz() {
		row := rows[c.Bug]
		name := etcdraft.TraceName(c.Bug)
		tr := shipped(t, cat, name+".trace")
		assert.Contains(t, row[1], "`--bug "+c.Bug+" ", c.Bug)
		for k, v := range c.Opts {
			assert.Contains(t, row[1], "--opt "+k+"="+v, c.Bug)
		}
		if m := seed.FindStringSubmatch(row[1]); assert.NotNil(t, m, "%s: the first failing seed", c.Bug) {
			assert.Equal(t, m[1], strconv.FormatUint(tr.Header.Seed, 10), "%s: the first failing seed", c.Bug)
		}
		size := sizeOf(tr)
		assert.Contains(t, []string{thousands(size), strings.Replace(thousands(size), " (", " deliveries (", 1)}, row[2], "%s: the shipped trace", c.Bug)
		if strings.HasPrefix(row[3], "`") {
			assert.Equal(t, "`"+tr.Header.Violation.Fingerprint+"`", row[3], "%s: the violation", c.Bug)
		}
		ref, min := sizeOf(shipped(t, cat, name+".reference.trace")), sizeOf(shipped(t, cat, name+".min.trace"))
		assert.Equal(t, ref, row[4], "%s: the reference", c.Bug)
		assert.Equal(t, min, strings.Trim(row[5], "*"), "%s: the minimized trace", c.Bug)
		assert.Equal(t, ref, hooks[c.Bug][1], "%s: the reference (hooks table)", c.Bug)
		assert.Equal(t, min, hooks[c.Bug][2], "%s: minimized with the hooks", c.Bug)
	}
}

// thousands writes the delivery count of a size "1242 (E:101)" with
// thousands separators, as the table does.
func thousands(size string) string {
	n, rest, _ := strings.Cut(size, " ")
	var x int
	for _, r := range n {
		x = 10*x + int(r-'0')
	}
	return thousandsInt(x) + " " + rest
}
