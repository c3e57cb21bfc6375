package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interruptSignals are the signals that stop a command the way Ctrl-C
// does: a CI timeout or `docker stop` sends SIGTERM, a closed terminal
// SIGHUP.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalContext returns a context cancelled by the first SIGINT, SIGTERM or
// SIGHUP, and a function that reports that signal's number (0 if none
// came). The command then stops, writes what it has (minimize verifies and
// writes its best trace) and exits 128 + the signal's number. A second
// signal exits at once with that status, whatever the command is doing.
// stop releases the signals.
func signalContext(parent context.Context, stderr io.Writer) (ctx context.Context, got func() int, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, interruptSignals...)
	var first atomic.Int32
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				n := signalNumber(s)
				if first.CompareAndSwap(0, int32(n)) {
					fmt.Fprintf(stderr, "\ndemi: %s: stopping; the best result so far is kept (send it again to exit at once)\n", s)
					cancel()
					continue
				}
				fmt.Fprintf(stderr, "\ndemi: %s again: exiting at once\n", s)
				os.Exit(128 + n)
			}
		}
	}()
	return ctx, func() int { return int(first.Load()) }, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 2 // os.Interrupt
}

// exitStatus maps a command's status to the process's: an interrupted
// command exits 128 + the number of the signal that interrupted it.
func exitStatus(code, signal int) int {
	if code == ExitInterrupted && signal != 0 {
		return 128 + signal
	}
	return code
}
