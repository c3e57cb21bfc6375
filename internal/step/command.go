package step

import (
	"fmt"
	"strconv"
	"strings"
)

// Op is what a command does.
type Op uint8

// The commands. The terminal UI maps keys to them; the scripted mode reads
// them one per line.
const (
	OpNext      Op = iota + 1 // next [N]: N steps forward (1)
	OpPrev                    // prev [N]: N steps back (1)
	OpGoto                    // goto K: go to step K
	OpBreak                   // break ACTOR|TYPE: run to the next event of an actor or a message type
	OpContinue                // continue: run to the next event of the last breakpoint
	OpViolation               // violation: run to the step where the invariant breaks
	OpRounds                  // rounds: toggle the round view
	OpSearch                  // search TEXT: run to the next event whose text contains TEXT
	OpState                   // state [ACTOR]: show an actor's whole state (no argument: fold it again)
	OpDeliver                 // deliver ID: what-if, deliver pending message ID now
	OpDrop                    // drop ID: what-if, pending message ID is never delivered
	OpRestart                 // restart ACTOR: what-if, crash-restart ACTOR now
	OpKill                    // kill ACTOR: what-if, kill ACTOR now
	OpInject                  // inject EVENT: what-if, an external event now
	OpUndo                    // undo: back to the execution before the last what-if
	OpSave                    // save [FILE] (save! FILE overwrites): write the execution as a trace
	OpHelp                    // help: the list of commands and keys
	OpQuit                    // quit
	OpDiff                    // diff: this what-if execution against the original
)

// Command is one parsed command.
type Command struct {
	Op Op
	// N is the count of next and prev, the step of goto, the message ID of
	// deliver and drop.
	N int
	// Arg is the rest of the line: an actor, a type, a search text, an
	// external event, a file name.
	Arg string
	// Force is set by save!: overwrite an existing file.
	Force bool
}

// commandSpec documents one command for help and parsing.
type commandSpec struct {
	name, alias, args, key, doc string
	op                          Op
}

// commandSpecs lists the commands in the order help shows them.
func commandSpecs() []commandSpec {
	return []commandSpec{
		{"next", "n", "[N]", "n → space", "go N steps forward (default 1)", OpNext},
		{"prev", "p", "[N]", "p ←", "go N steps back (default 1)", OpPrev},
		{"goto", "g", "K", "g", "go to step K", OpGoto},
		{"break", "b", "ACTOR|TYPE|COND", "b", "run to the next event of an actor or a message type, or to where COND starts to hold (raft-2.role == leader; raft-2.votes alone: where it changes)", OpBreak},
		{"continue", "c", "", "c", "run to the next stop of the last breakpoint", OpContinue},
		{"violation", "v", "", "v", "run to the step where the invariant breaks", OpViolation},
		{"rounds", "r", "", "r", "toggle the round view", OpRounds},
		{"search", "/", "TEXT", "/", "run to the next event whose text contains TEXT", OpSearch},
		{"state", "s", "[ACTOR]", "s", "show an actor's whole state (no ACTOR: fold it again)", OpState},
		{"deliver", "d", "ID", "d", "what-if: deliver pending message ID now instead", OpDeliver},
		{"drop", "x", "ID", "x", "what-if: pending message ID is never delivered (under FIFO, those behind it wait)", OpDrop},
		{"restart", "R", "ACTOR", "R", "what-if: crash-restart ACTOR now", OpRestart},
		{"kill", "K", "ACTOR", "K", "what-if: kill ACTOR now", OpKill},
		{"inject", "i", "EVENT", "i", "what-if: external event now (start A | kill A | restart A | send A TYPE {json} | partition A,B C | heal A,B C)", OpInject},
		{"undo", "u", "", "u", "back to the execution before the last what-if", OpUndo},
		{"diff", "=", "", "=", "compare this execution with the original: first different event, actors' state here", OpDiff},
		{"save", "w", "[FILE]", "w", "write this execution as a trace (save! FILE overwrites)", OpSave},
		{"help", "?", "", "?", "list the commands and keys", OpHelp},
		{"quit", "q", "", "q", "quit", OpQuit},
	}
}

// Parse reads one command line: a command name (or its one-letter alias)
// and its argument.
func Parse(line string) (Command, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return Command{}, fmt.Errorf("empty command (try help)")
	}
	name, arg, _ := strings.Cut(line, " ")
	if strings.HasPrefix(line, "/") && name != "/" { // "/text" searches too
		name, arg = "/", line[1:]
	}
	arg = strings.TrimSpace(arg)
	force := false
	if name == "save!" || name == "w!" {
		name, force = "save", true
	}
	var spec *commandSpec
	specs := commandSpecs()
	for i := range specs {
		if s := &specs[i]; s.name == name || s.alias == name {
			spec = s
			break
		}
	}
	if spec == nil {
		return Command{}, fmt.Errorf("unknown command %q (try help)", name)
	}
	c := Command{Op: spec.op, Arg: arg, Force: force}
	switch spec.op {
	case OpNext, OpPrev:
		c.N = 1
		if arg != "" {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return Command{}, fmt.Errorf("%s: %q is not a positive count", spec.name, arg)
			}
			c.N = n
		}
		c.Arg = ""
	case OpGoto, OpDeliver, OpDrop:
		n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
		if err != nil || n < 0 {
			return Command{}, fmt.Errorf("%s: want %s, got %q", spec.name, spec.args, arg)
		}
		c.N, c.Arg = n, ""
	case OpBreak, OpSearch, OpRestart, OpKill, OpInject:
		if arg == "" {
			return Command{}, fmt.Errorf("%s: want %s", spec.name, spec.args)
		}
	case OpSave, OpState:
	default:
		if arg != "" {
			return Command{}, fmt.Errorf("%s takes no argument", spec.name)
		}
	}
	if force && c.Arg == "" {
		return Command{}, fmt.Errorf("save!: want FILE (save! overwrites only a file you name)")
	}
	return c, nil
}

// Help returns the command list, one command a line: name, arguments, key
// in the terminal UI and what it does.
func Help() []string {
	width := argsWidth()
	var out []string
	for _, s := range commandSpecs() {
		out = append(out, fmt.Sprintf("%-10s %-*s %-10s %s", s.name, width, s.args, s.key, s.doc))
	}
	return out
}

// HelpHeader is the heading of Help's columns.
func HelpHeader() string {
	return fmt.Sprintf("%-10s %-*s %-10s %s", "command", argsWidth(), "argument", "key", "what it does")
}

// argsWidth is the width of Help's argument column.
func argsWidth() int {
	width := 11
	for _, s := range commandSpecs() {
		width = max(width, len(s.args)+1)
	}
	return width
}
