package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/demi-project/demi/internal/paths"
)

// checkOutput checks, before any work starts, that a command will be able
// to write the file path (given by flag, as the user typed it): it must not
// be a directory, its directory must exist and be writable. A command that
// runs for minutes must not lose its result to a typo in -o. When mustBeNew
// is set (the path is a default name the user did not type), an existing
// file is refused too: demi overwrites only what -o names.
func checkOutput(flag, path string, mustBeNew bool) error {
	if path == "" {
		return badInput(fmt.Errorf("%s: empty path", flag))
	}
	show := func(format string, args ...any) error {
		return badInput(fmt.Errorf("%s %s: %s", flag, path, fmt.Sprintf(format, args...)))
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return show("is a directory")
		}
		if !st.Mode().IsRegular() {
			return show("is not a regular file")
		}
		if mustBeNew {
			return show("exists; demi does not overwrite a file it was not told to write (pass -o %s to replace it, or another name)", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return show("%v", unwrapPath(err))
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return show("directory %s does not exist", dir)
	case err != nil:
		return show("%v", unwrapPath(err))
	case !st.IsDir():
		return show("%s is not a directory", dir)
	}
	// The only reliable test of writability: create (and remove) a file
	// there, as the atomic write will.
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return show("cannot write in %s: %v", dir, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// checkOutputOf is checkOutput for the output out of command, which reads
// the file in: out must not name in too (a command never overwrites its
// input).
func checkOutputOf(command, in, flag, out string, mustBeNew bool) error {
	if same, err := paths.Same(in, out); err != nil {
		return badInput(err)
	} else if same {
		return badInput(fmt.Errorf("-o %s is the input file; %s never overwrites its input", out, command))
	}
	return checkOutput(flag, out, mustBeNew)
}

// unwrapPath drops the *PathError wrapper, whose message repeats a path
// (often a temporary name) the user never typed.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkOutputsOf checks, before any work, that the outputs of a command
// reading the trace in are distinct from it and from each other: out is
// the -o flag (or, when empty, the default name in with suffix for
// .trace), others the command's other outputs (--stats, ...).
func checkOutputsOf(in, out, suffix string, others ...paths.Named) error {
	o := paths.Named{What: "-o", Path: out}
	if out == "" {
		o = paths.Named{What: "output", Path: strings.TrimSuffix(in, ".trace") + suffix}
	}
	if err := paths.Distinct([]paths.Named{{What: "input", Path: in}}, append([]paths.Named{o}, others...)); err != nil {
		return badInput(err)
	}
	return nil
}
