// Package report turns a trace into things a person reads where bug
// reports live, without demi or the system at hand:
//
//   - Markdown: a bug-report body to paste into a GitHub or GitLab issue,
//     with a Mermaid sequence diagram, the event table, the round view and
//     the commands that reproduce the failure (WriteMarkdown, WriteMermaid);
//   - ShiViz: a log with vector clocks for the ShiViz visualizer
//     (WriteShiViz);
//   - HTML: one self-contained page with a space-time diagram drawn as SVG,
//     the event table, the round view and, optionally, the minimization
//     statistics (WriteHTML).
//
// All of them start from a Story: the trace replayed once to learn what the
// trace file does not say by itself: which messages each step sent, which
// of them were never delivered (lost), and which round and phase each
// delivery belongs to (from package rounds).
//
// Every output is a function of the trace alone: the same trace gives the
// same bytes.
package report
