// Package cli is the demi command line. A demi binary is a catalog of
// systems plus this package: build your own binary that knows your system
// with a few lines of main,
//
//	func main() { cli.Main(record.NewCatalog(mysystem.System())) }
//
// and every command (systems, fuzz, replay, show, minimize, ...) works on it.
//
// Exit status: 0 success; 1 the thing asked for was not found (no violation
// found by fuzz, a replay that does not reproduce); 2 bad input (a corrupted
// or truncated trace, a FIFO or device as input, an unknown system, an
// option outside its bounds, a bad or repeated flag, an output path that
// cannot be written, a failed write on stdout); 128+N interrupted by
// signal N: 130 for Ctrl-C
// (SIGINT), 143 for SIGTERM, 129 for SIGHUP. An interrupted command keeps
// its best result so far (minimize verifies and writes it); a second signal
// exits at once. A command that replays a trace (replay, replay --step,
// show --rounds and --format, report) exits 1 when the trace diverges.
//
// Outputs are checked before any work: each must be writable and differ
// from every input and from the other outputs. A result that cannot be
// written where asked when the work is done (a disk that filled up, a file
// another run wrote there meanwhile) is kept next to the input (or in the
// temporary directory) as NAME.kept.EXT, and the command exits 2 saying
// where.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitNotFound    = 1
	ExitBadInput    = 2
	ExitInterrupted = 130
)

// ExitError carries the exit status a command ends with.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// badInput marks err as bad input (exit status 2).
func badInput(err error) error { return &ExitError{Code: ExitBadInput, Err: err} }

// notFound marks err as "not found" (exit status 1).
func notFound(err error) error { return &ExitError{Code: ExitNotFound, Err: err} }

// env is what every command shares.
type env struct {
	cat    *record.Catalog
	stdout io.Writer
	stderr io.Writer
	prog   Program // the binary, as the commands it prints name it
}

// New returns the root command for a catalog of systems. Commands read
// ctx from cmd.Context(); Main cancels it on SIGINT, SIGTERM or SIGHUP, and
// a command that stops because of that returns an ExitError with
// ExitInterrupted (Main turns it into 128 + the signal's number).
// The commands it prints name the binary demi unless an As option says
// otherwise.
func New(cat *record.Catalog, stdout, stderr io.Writer, opts ...Option) *cobra.Command {
	e := &env{cat: cat, stdout: stdout, stderr: stderr, prog: Demi}
	for _, o := range opts {
		o(e)
	}
	root := &cobra.Command{
		Use:   e.prog.Name,
		Short: "demi minimizes failing executions of distributed systems",
		Long: `demi runs distributed systems written as actors deterministically, fuzzes them
until an invariant breaks, records the failing execution as a trace, replays it
exactly, and minimizes it to the few events that still trigger the violation.`,
		Version:       Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(e.prog.Name + " {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	for _, c := range commands(e) {
		root.AddCommand(c)
	}
	RefuseRepeatedFlags(root)
	return root
}

// RefuseRepeatedFlags makes every flag of cmd and its subcommands that
// takes one value (all but the repeatable list flags such as --opt) refuse
// to be given twice: `--budget 1m --budget 5m` is a bad flag (exit 2), as
// a repeated --opt with another value is, instead of the last one silently
// winning.
func RefuseRepeatedFlags(cmd *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if _, list := f.Value.(pflag.SliceValue); list {
			return
		}
		if _, done := f.Value.(*onceValue); done {
			return
		}
		f.Value = &onceValue{Value: f.Value, name: f.Name}
	}
	cmd.Flags().VisitAll(wrap)
	cmd.PersistentFlags().VisitAll(wrap)
	for _, c := range cmd.Commands() {
		RefuseRepeatedFlags(c)
	}
}

// onceValue is a flag value that can be set once.
type onceValue struct {
	pflag.Value
	name string
	set  bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return fmt.Errorf("--%s is given twice (it takes one value)", o.name)
	}
	o.set = true
	return o.Value.Set(s)
}

// commands lists every subcommand; each lives in its own file.
func commands(e *env) []*cobra.Command {
	return []*cobra.Command{
		systemsCmd(e),
		fuzzCmd(e),
		replayCmd(e),
		showCmd(e),
		minimizeCmd(e),
		optimalCmd(e),
		checkCmd(e),
		explainCmd(e),
		reportCmd(e),
		triageCmd(e),
	}
}

// Run executes the command line args and returns the exit status, printing
// errors as one line on stderr.
//
// A failed write on stdout (a full disk, a closed pipe other than by
// SIGPIPE, /dev/full) is not lost: the command's output stops there and
// it exits 2 with the write's error, unless it failed already.
func Run(ctx context.Context, cat *record.Catalog, args []string, stdout, stderr io.Writer, opts ...Option) int {
	out := &checkedWriter{w: stdout}
	root := New(cat, out, stderr, opts...)
	code := Execute(ctx, root, args, stderr)
	if out.err != nil && code == ExitOK {
		fmt.Fprintln(stderr, root.Name()+": write standard output: "+record.Escape(oneLine(unwrapPath(out.err).Error())))
		return ExitBadInput
	}
	return code
}

// checkedWriter keeps the first error of its writes; every write after it
// fails with the same error, so a command's output stops at the first
// lost byte.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// Execute runs root on args and returns the exit status: that of an
// ExitError, ExitBadInput for cobra's own errors (an unknown command, a bad
// flag), ExitOK otherwise. An error is printed on stderr as one line
// prefixed with the root command's name. Other binaries built on demi (such
// as demi-eval) share demi's exit statuses through it.
func Execute(ctx context.Context, root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitBadInput // cobra's own errors: unknown command, bad args
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
		if ee.Err == nil {
			return code
		}
	}
	fmt.Fprintln(stderr, root.Name()+": "+record.Escape(oneLine(err.Error())))
	return code
}

// Main runs the demi command line on os.Args and exits. The commands it
// prints name the running binary (ThisProgram).
func Main(cat *record.Catalog) {
	ctx, got, stop := signalContext(context.Background(), os.Stderr)
	code := Run(ctx, cat, os.Args[1:], os.Stdout, os.Stderr, As(ThisProgram()))
	stop()
	os.Exit(exitStatus(code, got()))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// loadTrace reads a trace file; any problem with it is bad input. When
// ctx is cancelled meanwhile (a signal), the read stops and the command is
// interrupted.
func (e *env) loadTrace(ctx context.Context, path string) (*record.Trace, *record.System, error) {
	t, sys, err := record.ReadFileContext(ctx, path, e.cat)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted while reading %s", path)}
		}
		return nil, nil, badInput(err)
	}
	return t, sys, nil
}

// loadFailingTrace reads the input of a command that writes a new trace
// (minimize, optimal): out defaults to the input's name with its .trace
// suffix replaced by suffix, must not be the input itself, and the input
// must record a violation. It returns the trace, its system and out.
// out is checked before the input is read (see checkOutput): a default name
// must not exist yet, a path given with -o must be writable.
func (e *env) loadFailingTrace(ctx context.Context, command, in, out, suffix string) (*record.Trace, *record.System, string, error) {
	flag := "-o"
	if out == "" {
		out = strings.TrimSuffix(in, ".trace") + suffix
		flag = "output"
	}
	if err := checkOutputOf(command, in, flag, out, flag != "-o"); err != nil {
		return nil, nil, "", err
	}
	t, sys, err := e.loadTrace(ctx, in)
	if err != nil {
		return nil, nil, "", err
	}
	if t.Header.Violation == nil {
		return nil, nil, "", badInput(fmt.Errorf("%s records no violation", in))
	}
	return t, sys, out, nil
}

// maxJobs bounds -j: each worker holds its own checker (a run of the
// system), so an absurd -j would take memory without bound before any
// work; more walkers than this is a typo.
const maxJobs = 256

// maxWorkers is the most workers a run uses whatever -j says: the checks
// are CPU-bound, so workers beyond a few per core add memory, not speed
// (the results do not depend on the number of workers).
func maxWorkers() int { return 4 * runtime.NumCPU() }
