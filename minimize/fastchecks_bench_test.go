package minimize_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// BenchmarkMinimizeSteps minimizes shipped traces on one worker with the
// fast checks (forked runs, remembered candidates) and with every check
// run in full from the start, and reports the steps per second (steps as
// the budget counts them: the same for both, see the package doc) and the
// steps of the run. Compare the two rows of a trace measured in one run:
// go test -run '^$' -bench MinimizeSteps -benchtime 1x -count 3 ./minimize
func BenchmarkMinimizeSteps(b *testing.B) {
	for _, name := range []string{"raft-45", "raft-58b", "raft-66", "spark-2294", "paxos-accept-below-promise"} {
		tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", name+".trace"), examples.Catalog())
		if err != nil {
			b.Fatal(err)
		}
		for _, full := range []bool{false, true} {
			label := name + "/fast"
			cfg := minimize.Config{Budget: 10 * time.Minute, Workers: 1}
			if full {
				label = name + "/full"
				cfg = minimize.FullChecks(cfg)
			}
			b.Run(label, func(b *testing.B) {
				var steps int64
				for b.Loop() {
					res, err := minimize.Run(context.Background(), sys, tr, cfg)
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range res.Stages {
						steps += s.Steps
					}
				}
				b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			})
		}
	}
}
