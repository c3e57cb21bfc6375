// Command genref writes the hand-built reference reproducer of every bug of
// the spark example (examples/spark/reference.go) as DIR/<bug>.reference.trace.
// With -fuzz-args it instead prints, one bug a line, the demi fuzz flags
// that produce the bug's shipped trace (spark.ShippedFuzz).
// scripts/gen-traces.sh runs both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/demi-project/demi/examples/spark"
)

func main() {
	dir := flag.String("dir", "examples/traces", "directory to write the reference traces to")
	fuzzArgs := flag.Bool("fuzz-args", false, "print the demi fuzz flags of each shipped trace and exit")
	flag.Parse()
	if *fuzzArgs {
		for _, c := range spark.ShippedFuzz() {
			fmt.Println(c.Bug, strings.Join(c.Args(), " "))
		}
		return
	}
	if err := run(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "genref:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string) error {
	for _, bug := range spark.BugNames() {
		t, err := spark.Reference(ctx, bug)
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
