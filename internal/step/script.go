package step

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// ScriptWidth is the width of the screens the scripted mode prints.
const ScriptWidth = 100

// Script is the scripted mode: it prints the first screen, then reads
// commands from r one a line (blank lines and lines starting with # are
// skipped), runs each and prints the screen after it, until quit or the
// end of r. A command that cannot be run stops the script with an error
// naming its line.
func Script(ctx context.Context, w *Walk, r io.Reader, out io.Writer) error {
	bw := &errWriter{w: out}
	bw.printf("%s", w.Screen(ctx).Text(ScriptWidth))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := Parse(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := w.Exec(ctx, c); err != nil {
			return fmt.Errorf("line %d (%s): %w", n, line, err)
		}
		bw.printf("\n> %s\n", line)
		if w.Quit() {
			return bw.err
		}
		bw.printf("%s", w.Screen(ctx).Text(ScriptWidth))
		if bw.err != nil {
			return bw.err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading commands: %w", err)
	}
	return bw.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
