// Command demi-eval reproduces the DEMi paper's evaluation on the example
// bugs that ship with demi, beside the paper's own numbers and a peer built
// on pgregory.net/rapid. It is a separate binary from demi so that the demi
// command (and every binary a user builds with cli.Main) links no test,
// plotting or peer package.
//
// By default it writes its results to $TMPDIR/demi-eval-results/ (evaluation.md,
// evaluation.json and the plots under img/); --out names another directory,
// and --docs regenerates the checkout's docs/evaluation.md.
//
//	go run ./cmd/demi-eval --budget 2m          # results in $TMPDIR/demi-eval-results/
//	go run ./cmd/demi-eval --docs --budget 2m   # regenerate docs/evaluation.md
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	var code int
	if req, ok := os.LookupEnv(eval.ChildEnv); ok { // one minimization of a study (eval.Config.Isolate)
		code = eval.ServeMinimize(ctx, examples.Catalog(), req, os.Stdout, os.Stderr)
	} else {
		code = run(ctx, examples.Catalog(), os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	os.Exit(code)
}
