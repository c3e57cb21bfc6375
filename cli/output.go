package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/demi-project/demi/record"
)

// output is a file a command will write when its work is done, planned
// before the work starts: what was at its path then, and where to keep
// the result if the path cannot be written at the end. A run of minutes
// must not lose its result to a disk that filled up meanwhile, nor
// silently replace a file another run wrote there meanwhile (two demi
// minimize with the same -o).
type output struct {
	flag, path string
	before     fs.FileInfo // the file at path when planned; nil if none
	keepDir    string      // where the result goes when path cannot be written
}

// planOutput records the state of path (given by flag) before the work of
// a command that reads in. Call it after checkOutput.
func planOutput(flag, path, in string) *output {
	o := &output{flag: flag, path: path, keepDir: "."}
	if in != "" {
		o.keepDir = filepath.Dir(in)
	}
	if st, err := os.Stat(path); err == nil {
		o.before = st
	}
	return o
}

// write puts data at the planned path, atomically: as a new file when
// there was none (a file that appeared meanwhile is not replaced), else
// over the file that was there, unless it changed meanwhile. When that
// fails (a full disk, a file another run wrote), the data is kept in a
// fresh file next to the input, or else in the temporary directory: write
// returns where it went and an error (bad input: the output could not be
// written) that says so. Only when no copy could be kept is the path
// returned empty.
func (o *output) write(data []byte) (string, error) {
	err := o.put(data)
	if err == nil {
		return o.path, nil
	}
	cause := rootCause(err)
	for _, dir := range []string{o.keepDir, os.TempDir()} {
		if name, kerr := keep(dir, filepath.Base(o.path), data); kerr == nil {
			return name, badInput(fmt.Errorf("%s %s: %v; the result is kept in %s", o.flag, o.path, cause, name))
		}
	}
	return "", badInput(fmt.Errorf("%s %s: %v, and no copy could be kept next to the input or in %s", o.flag, o.path, cause, os.TempDir()))
}

var errChanged = errors.New("changed during the run (another demi writing it?); not replaced")

func (o *output) put(data []byte) error {
	if o.before == nil {
		err := record.WriteFileNew(o.path, data)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("write: %w", errors.New("appeared during the run (another demi writing it?); not replaced"))
		}
		return err
	}
	now, err := os.Stat(o.path)
	if err != nil || !os.SameFile(now, o.before) || !now.ModTime().Equal(o.before.ModTime()) || now.Size() != o.before.Size() {
		return fmt.Errorf("write: %w", errChanged)
	}
	return record.WriteFileAtomic(o.path, data)
}

// keep writes data to a fresh file in dir named after base (NAME.kept.EXT,
// NAME.kept-2.EXT, ...), never replacing a file.
func keep(dir, base string, data []byte) (string, error) {
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	var err error
	for i := 1; i <= 100; i++ {
		name := filepath.Join(dir, stem+".kept"+ext)
		if i > 1 {
			name = filepath.Join(dir, fmt.Sprintf("%s.kept-%d%s", stem, i, ext))
		}
		if err = record.WriteFileNew(name, data); err == nil || !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", err
}

// encodeTrace returns t as a trace file's bytes.
func encodeTrace(t *record.Trace) ([]byte, error) {
	var b bytes.Buffer
	if err := t.Encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeTrace encodes t and writes it to o (see output.write).
func (o *output) writeTrace(t *record.Trace) (string, error) {
	data, err := encodeTrace(t)
	if err != nil {
		return "", err
	}
	return o.write(data)
}

// rootCause is the error beneath the wrappers that name temporary files
// the user never typed (*fs.PathError, *os.LinkError, "write PATH: ...").
func rootCause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	case errors.Unwrap(err) != nil:
		return errors.Unwrap(err)
	}
	return err
}
