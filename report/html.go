package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/demi-project/demi/record"
)

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Parse(pageTemplate))

// pageData is what the page template shows.
type pageData struct {
	Title, WhatBroke, Summary string
	Diagram                   template.HTML
	Rows                      []pageRow
	Violation                 *record.Violation
	// Rounded is false for a trace no message of which carries a round
	// (record.Rounded): the page then says so instead of showing empty
	// round columns and bands.
	Rounded       bool
	Rounds        string
	Stats         *pageStats
	Commands      []string
	ReproduceText string
	// Lost counts the messages never delivered: hidden in the diagram
	// until the reader asks for them.
	Lost int
	// AtViolation: what the violating step changed, beside the diagram.
	AtViolation []string
}

type pageRow struct {
	Step                       int
	Kind, From, To, Msg, Round string
	Violation                  bool
}

type pageStats struct {
	Summary string
	Stages  any
	Pace    template.HTML
}

// WriteHTML writes one self-contained HTML page: what broke, the
// space-time diagram (SVG, drawn with svgo), the event table, the round
// view, the minimization stages and pace plot when stats is not nil, and
// the commands that reproduce the failure. Everything is inline: the page
// loads nothing (its Content-Security-Policy forbids it), so it opens
// offline and can be attached to a bug report as one file.
func (s *Story) WriteHTML(w io.Writer, stats *Stats) error {
	h := s.Trace.Header
	d := pageData{Title: "demi: " + s.Title(), Diagram: template.HTML(s.spaceTime()), Commands: s.Commands(), ReproduceText: s.ReproduceText(), Lost: s.Lost, AtViolation: s.AtViolation,
		Violation: s.Violation()}
	if v := s.Violation(); v != nil {
		d.Title = fmt.Sprintf("demi: %s in %s", v.Fingerprint, s.Title())
		d.WhatBroke = fmt.Sprintf("What broke: %s, seed %d, network %s, violates %s after step %d: %s",
			s.Title(), h.Seed, h.Network, v.Fingerprint, v.Event, v.Detail)
	} else {
		d.WhatBroke = fmt.Sprintf("This trace of %s, seed %d, network %s, records no violation.", s.Title(), h.Seed, h.Network)
	}
	d.Summary = fmt.Sprintf("Trace %s: %d events (%d deliveries, %d external events; %d %s never delivered), %d actors.",
		s.Name, len(s.Trace.Events), h.Deliveries, h.Externals, s.Lost, plural(s.Lost, "message", "messages"), len(s.Actors))
	if h.Note != "" {
		d.Summary += " Made by: " + h.Note + "."
	}
	for _, st := range s.Steps {
		kind, from, to, msg := Describe(st.Event)
		r := pageRow{Step: st.Index, Kind: kind, From: from, To: to, Msg: msg}
		if st.Rounded {
			r.Round = fmt.Sprintf("%d %s", st.Round, st.Phase)
			if st.Late {
				r.Round += fmt.Sprintf(" (late: receiver in %d)", st.ReceiverRound)
			}
		}
		if v := s.Violation(); v != nil && v.Event == st.Index {
			r.Violation = true
		}
		d.Rows = append(d.Rows, r)
	}
	if s.Layout.Rounded {
		d.Rounded = true
		var rv bytes.Buffer
		if err := s.Layout.Write(&rv); err != nil {
			return err
		}
		d.Rounds = rv.String()
	}
	if stats != nil {
		ps := &pageStats{Stages: stats.Stages, Pace: template.HTML(stats.pacePlot())}
		ps.Summary = fmt.Sprintf("%s minimized by strategy %s: %d schedules in %.1f s.", stats.Input, stats.Strategy, stats.Schedules, stats.Seconds)
		d.Stats = ps
	}
	return page.Execute(w, d)
}
