package tui

import (
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
)

// binding is a key that runs a command: at once, or after asking for its
// argument (ask is the question; suggest fills in a default answer).
type binding struct {
	binding key.Binding
	command string
	ask     string
	suggest func(m *model) string
}

type keyMap struct {
	Quit, Up, Down, PageUp, PageDown key.Binding
	cmds                             []binding
}

func none(*model) string { return "" }

// narrowWidth is the width below which the help line is cut short.
const narrowWidth = 100

func defaultKeys() keyMap {
	b := func(keys []string, help, desc, command, ask string, suggest func(*model) string) binding {
		if suggest == nil {
			suggest = none
		}
		return binding{binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc)), command: command, ask: ask, suggest: suggest}
	}
	return keyMap{
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Up:       key.NewBinding(key.WithKeys("up", "k")),
		Down:     key.NewBinding(key.WithKeys("down", "j")),
		PageUp:   key.NewBinding(key.WithKeys("pgup")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
		cmds: []binding{
			b([]string{"n", "right", " "}, "n/→", "next", "next", "", nil),
			b([]string{"p", "left"}, "p/←", "prev", "prev", "", nil),
			b([]string{"g"}, "g", "goto", "goto", "go to step: ", nil),
			b([]string{"b"}, "b", "break", "break", "break on (actor, message type, or actor.field [== value]): ", nil),
			b([]string{"c"}, "c", "continue", "continue", "", nil),
			b([]string{"v"}, "v", "violation", "violation", "", nil),
			b([]string{"r"}, "r", "rounds", "rounds", "", nil),
			b([]string{"/"}, "/", "search", "search", "search: ", nil),
			b([]string{"s"}, "s", "state", "state", "show the whole state of (actor; empty: fold): ", nil),
			b([]string{"d"}, "d", "deliver", "deliver", "what-if: deliver now pending message #", suggestDeliver),
			b([]string{"x"}, "x", "drop", "drop", "what-if: never deliver pending message #", nil),
			b([]string{"R"}, "R", "restart", "restart", "what-if: crash-restart actor: ", nil),
			b([]string{"K"}, "K", "kill", "kill", "what-if: kill actor: ", nil),
			b([]string{"i"}, "i", "inject", "inject", "what-if: inject (start|kill|restart A, send A TYPE {json}, partition|heal A,B C,D): ", nil),
			b([]string{"u"}, "u", "undo", "undo", "", nil),
			b([]string{"w"}, "w", "save", "save", "save the execution as: ", suggestSave),
			b([]string{"?"}, "?", "help", "help", "", nil),
			b([]string{":"}, ":", "command", "", ": ", nil),
		},
	}
}

func (k keyMap) commands() []binding { return k.cmds }

// suggestDeliver proposes the first deliverable message (a timer only if
// there is no message) that the schedule does not deliver next.
func suggestDeliver(m *model) string {
	scr := m.walk.Screen(m.ctx)
	for _, timers := range []bool{false, true} {
		for _, p := range scr.Pending {
			if p.Deliverable && p.ID != scr.Next && (p.Timer != "") == timers {
				return strconv.FormatUint(uint64(p.ID), 10)
			}
		}
	}
	return ""
}

func suggestSave(m *model) string { return m.walk.SaveName() }

// helpLine is the key list shown at the bottom at all times, wrapped to
// width.
// Below narrowWidth columns (an 80×24 terminal) it shows only the most
// used keys and ? for the rest, so that the actors keep the room.
func (k keyMap) helpLine(width int) []string {
	items := []string{}
	if width < narrowWidth {
		items = []string{"n/p step", "g goto", "b break", "v violation", "d/x deliver/drop", "? keys", "q quit"}
	} else {
		for _, b := range k.cmds {
			h := b.binding.Help()
			items = append(items, h.Key+" "+h.Desc)
		}
		items = append(items, "↑↓ scroll", "q quit")
	}
	var out []string
	line := ""
	for _, it := range items {
		if line != "" && utf8.RuneCountInString(line)+3+utf8.RuneCountInString(it) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " · "
		}
		line += it
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
