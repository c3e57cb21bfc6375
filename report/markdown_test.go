package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/internal/browsertest"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/report"
	"github.com/demi-project/demi/rounds"
)

// TestMarkdownGolden pins the bug-report body of every shipped minimized
// trace.
func TestMarkdownGolden(t *testing.T) {
	for _, bug := range shippedMin(t) {
		t.Run(bug, func(t *testing.T) {
			st := story(t, bug+".min.trace")
			md := render(t, func(b *bytes.Buffer) error { return st.WriteMarkdown(b) })
			golden(t, bug+".md", md)
		})
	}
}

// TestMarkdownParts checks the parts the issue asks for, on raft-45: the
// what-broke line, one participant per actor, one arrow per delivery, the
// table, the round view and the commands.
func TestMarkdownParts(t *testing.T) {
	st := story(t, "raft-45.min.trace")
	md := string(render(t, func(b *bytes.Buffer) error { return st.WriteMarkdown(b) }))
	lines := strings.Split(md, "\n")
	assert.Equal(t, "**What broke:** raft (raft-45), seed 45, network fifo, violates `ElectionSafety(raft-1,raft-2)` after step 20: raft-1 and raft-2 were both leader in term 1", lines[0])
	diagram := between(t, md, "```mermaid\n", "```\n")
	assert.Equal(t, diagram, string(render(t, func(b *bytes.Buffer) error { return st.WriteMermaid(b) })),
		"--format mermaid is the block of --format markdown")
	assert.Len(t, regexp.MustCompile(`(?m)^    participant `).FindAllString(diagram, -1), 5, "4 actors and ext")
	h := st.Trace.Header
	assert.Len(t, regexp.MustCompile(`(?m)^    \S+->>\S+: `).FindAllString(diagram, -1), h.Deliveries, "one arrow per delivery")
	assert.Len(t, regexp.MustCompile(`(?m)^    \S+--x\S+: never delivered`).FindAllString(diagram, -1), st.Lost)
	assert.Equal(t, 10, st.Lost)
	assert.Len(t, regexp.MustCompile(`(?m)^    Note over a\d: \d+: start$`).FindAllString(diagram, -1), 4)
	assert.Len(t, regexp.MustCompile(`(?m)^    Note over a0,ext: round 1, (election|vote)$`).FindAllString(diagram, -1), 4)
	assert.Contains(t, diagram, "    Note over a0,ext: violation after step 20: ElectionSafety(raft-1,raft-2)\n")
	assert.Len(t, regexp.MustCompile(`(?m)^\| \d+ \|`).FindAllString(md, -1), len(st.Trace.Events), "one table row per event")
	assert.Contains(t, md, "\n### Rounds\n\n```text\nprelude\n")
	assert.True(t, strings.HasSuffix(md, "```sh\ngo install ./cmd/demi   # in a checkout of github.com/demi-project/demi\n"+
		"demi replay raft-45.min.trace\ndemi replay --step raft-45.min.trace\n```\n"), md[len(md)-200:])
}

// TestNoRounds checks the views of a trace whose messages carry no round
// (a Spark control plane): they say so, and show no empty round column,
// band legend or round table.
func TestNoRounds(t *testing.T) {
	st := story(t, "spark-9256.min.trace")
	md := string(render(t, func(b *bytes.Buffer) error { return st.WriteMarkdown(b) }))
	assert.Contains(t, md, "\n### Rounds\n\nNo message of this trace carries a round (`record.Rounded`)")
	assert.NotContains(t, md, "```text\nprelude")
	page := string(render(t, func(b *bytes.Buffer) error { return st.WriteHTML(b, nil) }))
	assert.Contains(t, page, `<p id="rounds">No message of this trace carries a round`)
	assert.NotContains(t, page, "<th>round</th>")
	assert.NotContains(t, page, "bands: rounds and phases")

	st = story(t, "raft-45.min.trace")
	page = string(render(t, func(b *bytes.Buffer) error { return st.WriteHTML(b, nil) }))
	assert.Contains(t, page, "<th>round</th>")
	assert.Contains(t, page, `<pre id="rounds">`)
}

// TestCommandsNameTheBinaryAndTheAttachedFile checks the reproduce
// commands of a report written by a binary of one's own, on a trace named
// by a path: the binary's name, the file's base name (as attached), no
// install line when none is known.
func TestCommandsNameTheBinaryAndTheAttachedFile(t *testing.T) {
	st := story(t, "raft-45.min.trace")
	st.Name, st.Program, st.Install = "some/dir/my run.min.trace", "mydemi", ""
	assert.Equal(t, []string{"mydemi replay 'my run.min.trace'", "mydemi replay --step 'my run.min.trace'"}, st.Commands())
	assert.NotContains(t, st.ReproduceText(), "install")
}

func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	require.GreaterOrEqual(t, i, 0, "no %q", start)
	s = s[i+len(start):]
	j := strings.Index(s, end)
	require.GreaterOrEqual(t, j, 0, "no %q", end)
	return s[:j]
}

// odd is a message whose text holds every character Mermaid reads as
// syntax.
type odd struct{ S string }

func (o odd) String() string { return o.S }

// oddStory is a story whose labels and actor names need escaping.
func oddStory() *report.Story {
	nasty := `a;b#c:d%%e<f>&g"h'i` + "`j\\k|l→m\n%%{init: {}}%%"
	msg := odd{S: nasty}
	events := []record.Event{
		record.StartEvent("n;1"), record.StartEvent("n#2"),
		{Kind: record.Deliver, ID: 1, From: "n;1", To: "n#2", Msg: msg, Cause: 0},
		{Kind: record.Deliver, ID: 2, From: "n#2", To: "n#2", Msg: msg, Timer: "t;1", Cause: 2},
		record.PartitionEvent([]record.ActorID{"n;1"}, []record.ActorID{"n#2"}),
		record.KillEvent("n;1"),
	}
	tr := &record.Trace{Header: record.Header{System: "x", Violation: &record.Violation{Fingerprint: "F;#:" + nasty, Detail: nasty, Event: 5}}, Events: events}
	st := &report.Story{Name: "odd name's.trace", Trace: tr, System: &record.System{Name: "x"},
		Actors: []record.ActorID{"n;1", "n#2"}, Layout: &rounds.Layout{}}
	for i, e := range events {
		st.Steps = append(st.Steps, report.Step{Index: i, Event: e})
	}
	st.Steps[2].Rounded, st.Steps[2].Round, st.Steps[2].Phase = true, 3, nasty
	st.Steps[3].Lost = []record.Pending{{ID: 3, From: "n#2", To: "n;1", Msg: msg, Cause: 3}}
	st.Lost = 1
	return st
}

// TestMermaidEscapes checks that no syntax character of Mermaid survives
// in a label.
func TestMermaidEscapes(t *testing.T) {
	st := oddStory()
	d := string(render(t, func(b *bytes.Buffer) error { return st.WriteMermaid(b) }))
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	require.Len(t, lines, 1+2+2+1+2+1+1+1+1, d)
	for _, l := range lines[1:] {
		_, text, ok := strings.Cut(l, ": ")
		if strings.Contains(l, " participant ") {
			_, text, ok = strings.Cut(l, " as ")
		}
		require.True(t, ok, l)
		assert.NotRegexp(t, "[;#%<>&\"`\\\\\n]", regexp.MustCompile(`#\d+;`).ReplaceAllString(text, ""), l)
	}
	assert.Equal(t, "    participant a0 as n#59;1", lines[1])
}

// mermaidParses parses the diagram of every shipped minimized trace, and
// of a story full of characters Mermaid reads as syntax, with the mermaid
// package itself in headless Chromium.
func mermaidParses(t *testing.T, b *browsertest.Browser) {
	parse := b.MermaidParser(t)
	require.Error(t, parse("sequenceDiagram\n    a;b->>c: x\n    participant ;;"), "the parser rejects broken input")
	stories := map[string]*report.Story{"odd": oddStory()}
	for _, bug := range shippedMin(t) {
		stories[bug] = story(t, bug+".min.trace")
	}
	for name, st := range stories {
		md := string(render(t, func(b *bytes.Buffer) error { return st.WriteMarkdown(b) }))
		assert.NoError(t, parse(between(t, md, "```mermaid\n", "```\n")), name)
	}
}
