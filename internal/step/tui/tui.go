// Package tui is the terminal UI of `demi replay --step`, built with
// bubbletea (the model-update-view loop), bubbles (the scrolling viewport,
// the text input of prompts, key bindings) and lipgloss (colors).
//
// It is a thin layer over package step: every key becomes a step.Command
// run by the step.Walk, and the screen is the Walk's step.Screen, styled.
// The scripted mode prints the same Screen as plain text, so the two show
// the same information.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/demi-project/demi/internal/step"
)

// Run shows the walk in the terminal until the user quits or ctx ends.
func Run(ctx context.Context, w *step.Walk, in io.Reader, out io.Writer) error {
	m := newModel(ctx, w, lipgloss.NewRenderer(out))
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithAltScreen())
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// prompt is a question on the bottom line: the command it completes and,
// for a save over an existing file, the confirmation.
type prompt struct {
	label   string
	command string // the command the answer completes ("goto", ...)
	confirm string // set: a y/n question; y runs this command line
	// suggested is the default answer, shown dimmed in the empty input:
	// Enter takes it, typing replaces it.
	suggested string
}

type model struct {
	ctx    context.Context
	walk   *step.Walk
	st     styles
	keys   keyMap
	vp     viewport.Model
	input  textinput.Model
	ask    *prompt
	errMsg string
	width  int
	height int
	ready  bool
	header []string
	status string
}

func newModel(ctx context.Context, w *step.Walk, r *lipgloss.Renderer) *model {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 4096
	return &model{ctx: ctx, walk: w, st: newStyles(r), keys: defaultKeys(), input: in}
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if !m.ready {
			m.vp = viewport.New(msg.Width, 1)
			m.ready = true
		}
		m.refresh(false)
		return m, nil
	case tea.KeyMsg:
		if m.ask != nil {
			return m.answer(msg)
		}
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// Keys typed faster than they are read arrive together:
			// take them one at a time (a prompt takes the rest).
			var cmds []tea.Cmd
			for i, r := range msg.Runes {
				one := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
				if m.ask != nil {
					rest := tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]}
					_, cmd := m.answer(rest)
					return m, tea.Batch(append(cmds, cmd)...)
				}
				_, cmd := m.key(one)
				cmds = append(cmds, cmd)
				if m.walk.Quit() {
					break
				}
			}
			return m, tea.Batch(cmds...)
		}
		return m.key(msg)
	}
	return m, nil
}

// key handles a key outside prompts.
func (m *model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Up):
		m.vp.ScrollUp(1)
		return m, nil
	case key.Matches(msg, k.Down):
		m.vp.ScrollDown(1)
		return m, nil
	case key.Matches(msg, k.PageUp):
		m.vp.PageUp()
		return m, nil
	case key.Matches(msg, k.PageDown):
		m.vp.PageDown()
		return m, nil
	}
	for _, b := range k.commands() {
		if !key.Matches(msg, b.binding) {
			continue
		}
		if b.ask == "" {
			m.run(b.command)
			if m.walk.Quit() {
				return m, tea.Quit
			}
			return m, nil
		}
		m.ask = &prompt{label: b.ask, command: b.command, suggested: b.suggest(m)}
		m.input.SetValue("")
		m.input.Placeholder = m.ask.suggested
		// The input shows at most Width runes (and the placeholder too).
		m.input.Width = max(m.width-lipgloss.Width(b.ask)-2, len(m.ask.suggested)+1, 10)
		m.errMsg = ""
		return m, m.input.Focus()
	}
	return m, nil
}

// answer handles a key while a prompt is open.
func (m *model) answer(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	p := m.ask
	if p.confirm != "" {
		m.ask = nil
		if strings.EqualFold(msg.String(), "y") {
			m.run(p.confirm)
		} else {
			m.errMsg = "not saved"
		}
		return m, nil
	}
	switch msg.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.ask = nil
		m.input.Blur()
		return m, nil
	case tea.KeyEnter:
		m.ask = nil
		m.input.Blur()
		v := strings.TrimSpace(m.input.Value())
		if v == "" {
			v = p.suggested
		}
		line := strings.TrimSpace(p.command + " " + v)
		if p.command == "save" && v != "" && exists(v) {
			m.ask = &prompt{label: fmt.Sprintf("%s exists: overwrite it? (y/n) ", v), confirm: "save! " + v}
			return m, nil
		}
		if line == "" {
			return m, nil
		}
		m.run(line)
		if m.walk.Quit() {
			return m, tea.Quit
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// run parses and runs one command line, then redraws.
func (m *model) run(line string) {
	m.errMsg = ""
	c, err := step.Parse(line)
	if err == nil {
		err = m.walk.Exec(m.ctx, c)
	}
	if err != nil {
		m.errMsg = err.Error()
	}
	m.refresh(true)
}

// refresh rebuilds the screen; top scrolls the body back to its top.
func (m *model) refresh(top bool) {
	if !m.ready {
		return
	}
	scr := m.walk.Screen(m.ctx)
	m.header = nil
	// The header wraps (the violation's text is never cut); the body's
	// lines are clipped, and scroll.
	wrap := lipgloss.NewStyle().Width(max(m.width, 1))
	for _, l := range scr.Header(m.st) {
		m.header = append(m.header, strings.Split(wrap.Render(l), "\n")...)
	}
	body := scr.Body(m.st, m.width)
	for i, l := range body {
		body[i] = m.st.clip(l, m.width)
	}
	m.vp.Width = m.width
	m.vp.Height = max(m.height-len(m.header)-1-1-len(m.helpLines()), 1)
	m.vp.SetContent(strings.Join(body, "\n"))
	if top {
		m.vp.GotoTop()
	}
	m.status = scr.Status
}

func (m *model) helpLines() []string {
	return m.keys.helpLine(m.width)
}

func (m *model) View() string {
	if !m.ready {
		return "loading…"
	}
	var b strings.Builder
	for _, l := range m.header {
		b.WriteString(l + "\n")
	}
	b.WriteString(m.st.rule.Render(strings.Repeat("─", max(m.width, 1))) + "\n")
	b.WriteString(m.vp.View() + "\n")
	switch {
	case m.ask != nil && m.ask.confirm != "":
		b.WriteString(m.st.prompt.Render(m.ask.label))
	case m.ask != nil:
		b.WriteString(m.st.prompt.Render(m.ask.label) + m.input.View())
	case m.errMsg != "":
		b.WriteString(m.st.clip(m.st.Bad("✗ "+m.errMsg), m.width))
	case m.status != "":
		b.WriteString(m.st.clip("» "+m.status, m.width))
	}
	b.WriteString("\n")
	for i, l := range m.helpLines() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(m.st.Dim(l))
	}
	return b.String()
}
