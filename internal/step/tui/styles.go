package tui

import (
	"github.com/charmbracelet/lipgloss"
)

// styles is the step.Style of the terminal: colors and bold, on the
// renderer of the program's output.
type styles struct {
	title, label, changed, bad, good, dim, rule, prompt lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	s := func() lipgloss.Style { return r.NewStyle() }
	return styles{
		title:   s().Bold(true),
		label:   s().Foreground(lipgloss.Color("12")),
		changed: s().Foreground(lipgloss.Color("11")).Bold(true),
		bad:     s().Foreground(lipgloss.Color("9")).Bold(true),
		good:    s().Foreground(lipgloss.Color("10")),
		dim:     s().Foreground(lipgloss.Color("8")),
		rule:    s().Foreground(lipgloss.Color("8")),
		prompt:  s().Foreground(lipgloss.Color("14")).Bold(true),
	}
}

func (s styles) Title(t string) string   { return s.title.Render(t) }
func (s styles) Label(t string) string   { return s.label.Render(t) }
func (s styles) Changed(t string) string { return s.changed.Render(t) }
func (s styles) Bad(t string) string     { return s.bad.Render(t) }
func (s styles) Good(t string) string    { return s.good.Render(t) }
func (s styles) Dim(t string) string     { return s.dim.Render(t) }

// clip cuts a styled line to width cells.
func (s styles) clip(line string, width int) string {
	if width <= 0 {
		return line
	}
	return lipgloss.NewStyle().MaxWidth(width).Render(line)
}
