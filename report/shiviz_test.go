package report_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/report"
)

// checkShiViz checks a ShiViz log against the rules ShiViz enforces: the
// first line is a regular expression with the named groups host, clock and
// event; the second is the (empty) execution delimiter; every other line
// matches the expression and carries a JSON vector clock in which the
// host's own entry starts at 1 and grows by exactly 1 per event of that
// host; no entry of another host exceeds that host's own count so far, and
// every host named in a clock has events of its own. It returns the
// number of events.
func checkShiViz(log string) (int, error) {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		return 0, fmt.Errorf("empty log")
	}
	re, err := regexp.Compile("^" + sc.Text() + "$")
	if err != nil {
		return 0, fmt.Errorf("line 1 is not a regular expression: %w", err)
	}
	for _, g := range []string{"host", "clock", "event"} {
		if re.SubexpIndex(g) < 0 {
			return 0, fmt.Errorf("line 1 has no named group %q", g)
		}
	}
	if !sc.Scan() || sc.Text() != "" {
		return 0, fmt.Errorf("line 2 must be the empty execution delimiter")
	}
	own := map[string]int{}    // events of each host so far
	named := map[string]bool{} // hosts named in some clock
	last := map[string]map[string]int{}
	n := 0
	for line := 3; sc.Scan(); line++ {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			return n, fmt.Errorf("line %d does not match: %q", line, sc.Text())
		}
		host, event := m[re.SubexpIndex("host")], m[re.SubexpIndex("event")]
		var clock map[string]int
		if err := json.Unmarshal([]byte(m[re.SubexpIndex("clock")]), &clock); err != nil {
			return n, fmt.Errorf("line %d: clock is not a JSON object of counts: %w", line, err)
		}
		if event == "" {
			return n, fmt.Errorf("line %d: empty event", line)
		}
		own[host]++
		if clock[host] != own[host] {
			return n, fmt.Errorf("line %d: %s's own entry is %d, want %d", line, host, clock[host], own[host])
		}
		for h, c := range clock {
			named[h] = true
			if c < 1 {
				return n, fmt.Errorf("line %d: entry %s=%d is not positive", line, h, c)
			}
			if c > own[h] {
				return n, fmt.Errorf("line %d: entry %s=%d but %s has had %d events", line, h, c, h, own[h])
			}
			if c < last[host][h] {
				return n, fmt.Errorf("line %d: %s's entry for %s went back from %d to %d", line, host, h, last[host][h], c)
			}
		}
		last[host] = clock
		n++
	}
	for h := range named {
		if own[h] == 0 {
			return n, fmt.Errorf("host %s is named in a clock but has no event", h)
		}
	}
	return n, sc.Err()
}

func TestCheckShiVizCatchesBrokenLogs(t *testing.T) {
	head := report.ShiVizRegexp
	for name, log := range map[string]string{
		"no groups":    "(.*)\n\na {\"a\":1} x\n",
		"no delimiter": head + "\na {\"a\":1} x\n",
		"starts at 2":  head + "\n\na {\"a\":2} x\n",
		"skips":        head + "\n\na {\"a\":1} x\na {\"a\":3} y\n",
		"ghost host":   head + "\n\na {\"a\":1,\"b\":1} x\n",
		"future entry": head + "\n\nb {\"b\":1} y\na {\"a\":1,\"b\":2} x\n",
		"not json":     head + "\n\na {a:1} x\n",
		"going back":   head + "\n\nb {\"b\":1} y\nb {\"b\":2} y\na {\"a\":1,\"b\":2} x\na {\"a\":2,\"b\":1} x\n",
		"no match":     head + "\n\njust text\n",
	} {
		_, err := checkShiViz(log)
		assert.Error(t, err, name)
	}
	n, err := checkShiViz(head + "\n\na {\"a\":1} x\nb {\"a\":1,\"b\":1} y\n")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

// TestShiVizRules runs the checker on every shipped trace, minimized and
// not: one line per event.
func TestShiVizRules(t *testing.T) {
	for _, bug := range shippedMin(t) {
		for _, file := range []string{bug + ".min.trace", bug + ".trace"} {
			t.Run(file, func(t *testing.T) {
				st := story(t, file)
				log := render(t, func(b *bytes.Buffer) error { return st.WriteShiViz(b) })
				n, err := checkShiViz(string(log))
				require.NoError(t, err)
				assert.Equal(t, len(st.Steps), n)
				if strings.HasSuffix(file, ".min.trace") {
					golden(t, bug+".shiviz", log)
				}
			})
		}
	}
}
