// Command genref writes the hand-built reference reproducer of every bug of
// the raft example (see examples/raft/reference.go) as
// DIR/<bug>.reference.trace. scripts/gen-traces.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/demi-project/demi/examples/raft"
)

func main() {
	dir := flag.String("dir", "examples/traces", "directory to write the reference traces to")
	flag.Parse()
	if err := run(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "genref:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string) error {
	for _, bug := range raft.BugNames() {
		t, err := raft.Reference(ctx, bug)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, bug+".reference.trace")
		if err := t.WriteFile(path); err != nil {
			return err
		}
		h := t.Header
		fmt.Printf("%s: %d deliveries, %d externals: %s\n  wrote %s\n", bug, h.Deliveries, h.Externals, h.Violation.Fingerprint, path)
	}
	return nil
}
