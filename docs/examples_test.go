package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commonFuzzFlags are the flags docs/examples.md states once for every
// shipped trace ("Common flags"), with --runs 1 and the --min-deliveries
// gate it explains in prose.
var commonFuzzFlags = map[string]string{"--mode": "walk", "--max-steps": "3000", "--externals": "100", "--timer-prob": "0.05",
	"--check-every": "1", "--runs": "1", "--min-deliveries": "300"}

// TestShippedTracesTable checks the table of shipped traces in
// docs/examples.md against the files and tables it describes: the fuzz
// flags against raft.ShippedFuzz, the sizes and violation against the
// headers of examples/traces/<bug>.trace and <bug>.reference.trace, the
// paper's sizes against eval.Paper.
func TestShippedTracesTable(t *testing.T) {
	rows := bugRows(t, "examples.md", 6)
	cat := examples.Catalog()
	fuzz := raft.ShippedFuzz()
	require.Len(t, rows, len(fuzz), "one row per shipped trace")
	flag := regexp.MustCompile(`(--[a-z-]+) (\S+)`)
	for _, c := range fuzz {
		row, ok := rows[c.Bug]
		if !assert.True(t, ok, "no row for %s", c.Bug) {
			continue
		}
		shown := map[string]string{}
		for _, m := range flag.FindAllStringSubmatch(strings.Trim(row[1], "`"), -1) {
			shown[m[1]] += m[2]
		}
		want := map[string]string{}
		if _, ok := shown["--system"]; ok {
			want["--system"] = "raft"
		}
		args := c.Args()
		for i := 0; i+1 < len(args); i += 2 {
			if commonFuzzFlags[args[i]] != args[i+1] {
				want[args[i]] += args[i+1]
			}
		}
		assert.Equal(t, want, shown, "%s: the fuzz flags besides the common ones", c.Bug)

		tr := shipped(t, cat, c.Bug+".trace")
		size := fmt.Sprintf("%s (E:%d)", thousandsInt(tr.Header.Deliveries), tr.Header.Externals)
		assert.Contains(t, []string{size, strings.Replace(size, " (", " deliveries (", 1)}, row[2], "%s: the shipped trace", c.Bug)
		assert.Equal(t, "`"+tr.Header.Violation.Fingerprint+"`", row[3], "%s: the violation", c.Bug)

		assert.Equal(t, sizeOf(shipped(t, cat, c.Bug+".reference.trace")), row[4], "%s: the reference", c.Bug)

		p, ok := eval.PaperFor(c.Bug)
		require.True(t, ok)
		assert.Equal(t, p.Initial.String()+" → "+p.Optimal.String(), row[5], "%s: the paper's Table 1", c.Bug)
	}
}

// thousandsInt writes n with thousands separators, as the pages do: 1,930.
func thousandsInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestMinimizationResultsTable checks the sizes in the results table of
// docs/minimization.md against the shipped traces: the input, demi's
// result (<bug>.min.trace), the reference and their ratio. The schedules
// and seconds are a dated measurement the page says how it made.
func TestMinimizationResultsTable(t *testing.T) {
	rows := bugRows(t, "minimization.md", 11)
	cat := examples.Catalog()
	require.Len(t, rows, len(raft.BugNames()))
	for _, bug := range raft.BugNames() {
		row, ok := rows[bug]
		if !assert.True(t, ok, "no row for %s", bug) {
			continue
		}
		in, res, ref := shipped(t, cat, bug+".trace"), shipped(t, cat, bug+".min.trace"), shipped(t, cat, bug+".reference.trace")
		assert.Equal(t, sizeOf(in), row[1], "%s: the input", bug)
		assert.Equal(t, "**"+sizeOf(res)+"**", row[3], "%s: demi's result", bug)
		assert.Equal(t, sizeOf(ref), row[4], "%s: the reference", bug)
		ratio, _ := eval.Ratio(res.Header.Deliveries, ref.Header.Deliveries)
		assert.Equal(t, fmt.Sprintf("%.2f", ratio), row[5], "%s: tfb / reference", bug)
	}
}

// bugRows returns the rows of a page's tables that have n cells and whose
// first cell is a raft bug, by bug, cells trimmed.
func bugRows(t *testing.T, page string, n int) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != n || !strings.HasPrefix(strings.TrimSpace(cells[0]), "raft-") {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[cells[0]] = cells
	}
	return rows
}

// shipped reads a shipped trace of examples/traces.
func shipped(t *testing.T, cat *record.Catalog, name string) *record.Trace {
	t.Helper()
	tr, _, err := record.ReadFile(filepath.Join("..", "examples", "traces", name), cat)
	require.NoError(t, err)
	return tr
}

// sizeOf writes a trace's size as the tables do: 16 (E:8).
func sizeOf(tr *record.Trace) string {
	return fmt.Sprintf("%d (E:%d)", tr.Header.Deliveries, tr.Header.Externals)
}
