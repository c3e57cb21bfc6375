package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
)

// WriteMarkdown writes a bug-report body for a GitHub or GitLab issue: one
// line saying what broke, the trace's numbers, the sequence diagram in a
// mermaid block (see WriteMermaid), the event table, the round view (for
// systems whose messages carry a round) and the commands that reproduce
// the failure and step through it.
func (s *Story) WriteMarkdown(w io.Writer) error {
	p := &printer{w: w}
	h := s.Trace.Header
	if v := s.Violation(); v != nil {
		p.line("**What broke:** %s, seed %d, network %s, violates %s after step %d: %s",
			mdText(s.Title()), h.Seed, mdText(h.Network), codeSpan(v.Fingerprint), v.Event, mdText(v.Detail))
	} else {
		p.line("**What broke:** nothing: this trace of %s, seed %d, network %s, records no violation",
			mdText(s.Title()), h.Seed, mdText(h.Network))
	}
	p.line("")
	lost := ""
	if s.Lost > 0 {
		lost = fmt.Sprintf("; %d %s never delivered", s.Lost, plural(s.Lost, "message", "messages"))
	}
	p.line("Trace %s: %d events (%d deliveries, %d external events%s).", codeSpan(s.Name),
		len(s.Trace.Events), h.Deliveries, h.Externals, lost)
	if h.Note != "" {
		p.line("It was made by: %s.", mdText(strings.TrimSuffix(h.Note, ".")))
	}
	p.line("")
	p.line("### Sequence diagram")
	p.line("")
	var diagram bytes.Buffer
	if err := s.WriteMermaid(&diagram); err != nil {
		return err
	}
	p.block("mermaid", diagram.String())
	p.line("")
	p.line("### Events")
	p.line("")
	p.line("| step | kind | from | to | message |")
	p.line("| ---: | --- | --- | --- | --- |")
	for _, st := range s.Steps {
		kind, from, to, msg := Describe(st.Event)
		if msg != "" {
			msg = codeSpan(msg)
		}
		p.line("| %d | %s | %s | %s | %s |", st.Index, cell(kind), cell(from), cell(to), cell(msg))
	}
	if v := s.Violation(); v != nil {
		p.line("")
		p.line("Violation after step %d: %s, %s", v.Event, codeSpan(v.Fingerprint), mdText(v.Detail))
	}
	if s.Layout.Rounded {
		p.line("")
		p.line("### Rounds")
		p.line("")
		var rv bytes.Buffer
		if err := s.Layout.Write(&rv); err != nil {
			return err
		}
		p.block("text", rv.String())
	} else {
		p.line("")
		p.line("### Rounds")
		p.line("")
		p.line("No message of this trace carries a round (`record.Rounded`): its system is not written as rounds, so there is no round view; the events above are the whole run.")
	}
	p.line("")
	p.line("### Reproduce")
	p.line("")
	p.line("%s", mdText(s.ReproduceText()))
	p.line("")
	p.block("sh", strings.Join(s.Commands(), "\n")+"\n")
	return p.err
}

// Commands returns the command lines that reproduce the trace and step
// through it, run in the directory of the attached trace file: the
// install line first (as a comment when it carries one), then replay and
// step with Program.
func (s *Story) Commands() []string {
	f := shellQuote(filepath.Base(s.Name))
	prog := s.program()
	var out []string
	if s.Install != "" {
		out = append(out, s.Install)
	}
	return append(out, prog+" replay "+f, prog+" replay --step "+f)
}

// ReproduceText is the sentence that introduces Commands.
func (s *Story) ReproduceText() string {
	install := ""
	if s.Install != "" {
		install = fmt.Sprintf("install %s (the first line), then, ", s.program())
	}
	return fmt.Sprintf("With the trace file %s attached to this report: %sin the directory that holds it, "+
		"replay it (exit status 0 when it reproduces the violation) and step through it:", filepath.Base(s.Name), install)
}

func (s *Story) program() string {
	if s.Program == "" {
		return "demi"
	}
	return s.Program
}

// block writes content in a fenced code block with the given info string,
// using a fence longer than any run of backticks in content.
func (p *printer) block(info, content string) {
	fence := "```"
	for strings.Contains(content, fence) {
		fence += "`"
	}
	p.line("%s%s", fence, info)
	if p.err == nil {
		_, p.err = io.WriteString(p.w, content)
	}
	if !strings.HasSuffix(content, "\n") {
		p.line("")
	}
	p.line("%s", fence)
}

var mdSpecial = regexp.MustCompile("[\\\\`*_\\[\\]<>#|~]")

// mdText escapes the characters Markdown would read as markup.
func mdText(s string) string {
	return mdSpecial.ReplaceAllStringFunc(strings.Join(strings.Fields(s), " "), func(m string) string {
		switch m {
		case "<":
			return "&lt;"
		case ">":
			return "&gt;"
		}
		return "\\" + m
	})
}

// codeSpan renders s as inline code, with a backtick run longer than any
// inside s.
func codeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	tick := "`"
	for strings.Contains(s, tick) {
		tick += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// cell escapes a table cell: a pipe ends a cell even inside inline code.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./+=:,@-]+$`)

// shellQuote quotes a file name for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
