package cli

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/demi-project/demi/internal/step"
	"github.com/demi-project/demi/internal/step/tui"
	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stepThrough is `demi replay --step FILE`: the terminal UI when stdin is
// a terminal, else the scripted mode (commands read from stdin, one a
// line, each screen printed as plain text).
//
// changed lists the options changed from the trace's (--opt, --bug,
// --no-bug): the trace is then followed loosely, as far as it still
// applies.
func (e *env) stepThrough(cmd *cobra.Command, path string, t *record.Trace, sys *record.System, changed string) error {
	ctx := cmd.Context()
	s, err := step.Open(ctx, sys, t, changed != "")
	if err != nil {
		return replayFailure(ctx, err)
	}
	w, err := step.NewWalk(ctx, sys, path, s)
	if err != nil {
		return replayFailure(ctx, err)
	}
	w.Program = e.prog.Name
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// The terminal UI needs the terminal itself (its size, raw mode),
		// not the checked writer around it.
		out := e.stdout
		if cw, ok := out.(*checkedWriter); ok {
			out = cw.w
		}
		return tui.Run(ctx, w, f, out)
	}
	if err := step.Script(ctx, w, newContextReader(ctx, in), e.stdout); err != nil {
		return replayFailure(ctx, err)
	}
	if ctx.Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
	}
	return nil
}

// replayFailure classifies the error of a command that needs a trace to
// replay (a step-through, a report, a round view): interrupted when ctx is
// done, 1 (not found) when the run left the trace (a record.Divergence, as
// a plain replay exits), 2 (bad input) otherwise.
func replayFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
	}
	var div *record.Divergence
	if errors.As(err, &div) {
		return notFound(err)
	}
	return badInput(err)
}

// contextReader reads r in a goroutine so that a read waiting on a pipe
// (the scripted step-through reads its commands from stdin) gives up as
// soon as ctx is done: a signal then stops the command instead of waiting
// for the writer. The goroutine's pending read is abandoned; the command
// ends right after.
type contextReader struct {
	ctx    context.Context
	chunks chan readChunk
	buf    []byte
	err    error
}

type readChunk struct {
	b   []byte
	err error
}

func newContextReader(ctx context.Context, r io.Reader) *contextReader {
	c := &contextReader{ctx: ctx, chunks: make(chan readChunk)}
	go func() {
		for {
			b := make([]byte, 32<<10)
			n, err := r.Read(b)
			select {
			case c.chunks <- readChunk{b[:n], err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *contextReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		select {
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		case ch := <-c.chunks:
			c.buf, c.err = ch.b, ch.err
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
