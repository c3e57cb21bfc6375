package step

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/demi-project/demi/internal/paths"
	"github.com/demi-project/demi/record"
)

// save writes the current execution as a trace. With no name it picks a
// fresh one next to the walked file (NAME.whatif.trace, then
// NAME.whatif-2.trace, ...). It never writes over the walked file, and
// over another existing file only when force is set (save! FILE). The
// write is atomic: a temporary file in the same directory, synced, then
// linked (or, with force, renamed) to its name.
func (w *Walk) save(name string, force bool) error {
	if name == "" {
		name = w.SaveName()
	}
	if same, err := paths.Same(name, w.path); err == nil && same {
		return fmt.Errorf("save: %s is the trace being walked through; it is never overwritten", name)
	}
	if _, err := os.Stat(name); err == nil && !force {
		return fmt.Errorf("save: %s exists (save! %s overwrites it)", name, name)
	}
	t := w.Session().Trace()
	t.Header.Note = fmt.Sprintf("demi replay --step of %s", filepath.Base(w.path))
	if len(w.outcomes) > 0 {
		var parts []string
		for _, o := range w.outcomes {
			parts = append(parts, describeChange(o.Change))
		}
		t.Header.Note += ", what-if: " + strings.Join(parts, "; ")
	}
	var buf bytes.Buffer
	if err := t.Encode(&buf); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	write := record.WriteFileNew
	if force {
		write = record.WriteFileAtomic
	}
	if err := write(name, buf.Bytes()); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	w.status = fmt.Sprintf("saved %d events to %s", len(t.Events), name)
	if t.Header.Violation == nil {
		prog := w.Program
		if prog == "" {
			prog = "demi"
		}
		w.status += fmt.Sprintf(" (it reaches no violation: %s replay and %s minimize need one)", prog, prog)
	}
	return nil
}

// SaveName is the file a save without a name writes: a fresh name next to
// the walked file.
func (w *Walk) SaveName() string {
	base := strings.TrimSuffix(w.path, ".trace")
	base = strings.TrimSuffix(base, ".min")
	for i := 1; ; i++ {
		name := base + ".whatif.trace"
		if i > 1 {
			name = fmt.Sprintf("%s.whatif-%d.trace", base, i)
		}
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
	}
}
