// Package paths holds the file-path checks demi's commands share.
package paths

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Same reports whether a and b name the same file: the same absolute path,
// or two existing paths to one file (through a link or another spelling).
func Same(a, b string) (bool, error) {
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	bb, err := filepath.Abs(b)
	if err != nil {
		return false, err
	}
	if aa == bb {
		return true, nil
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb), nil
}

// OpenInput opens the file path for reading, refusing anything but a
// regular file up front: a FIFO would block the open (and then the read)
// until some other process writes to it, a device such as /dev/zero never
// ends, and a directory is not a file. The open does not block (it is
// non-blocking, which changes nothing for a regular file), and the check
// is made on the opened file, so a path swapped meanwhile cannot slip
// through.
func OpenInput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file", path, describeMode(m))
	}
	return f, nil
}

// ReadInput reads the whole regular file path (see OpenInput), at most
// limit bytes: a larger file is an error, not an allocation.
func ReadInput(path string, limit int64) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Named is a path as a command's flag or argument gives it.
type Named struct {
	What string // how the user gave it: "-o", "--stats", "input"
	Path string
}

// Distinct checks, before a command starts its work, that none of its
// outputs names one of its inputs or another output (through any spelling
// or link): a command never overwrites what it reads, and two results
// written to one file lose one. Empty paths are skipped.
func Distinct(inputs, outputs []Named) error {
	for i, o := range outputs {
		if o.Path == "" {
			continue
		}
		for _, in := range inputs {
			if in.Path == "" {
				continue
			}
			if same, err := Same(o.Path, in.Path); err != nil {
				return err
			} else if same {
				return fmt.Errorf("%s %s is the %s file; demi never overwrites its input", o.What, o.Path, in.What)
			}
		}
		for _, p := range outputs[:i] {
			if p.Path == "" {
				continue
			}
			if same, err := Same(o.Path, p.Path); err != nil {
				return err
			} else if same {
				return fmt.Errorf("%s %s is also the %s file; give each output its own file", o.What, o.Path, p.What)
			}
		}
	}
	return nil
}
