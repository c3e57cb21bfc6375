// Package paths holds the file-path checks demi's commands share.
package paths

import (
	"os"
	"path/filepath"
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
