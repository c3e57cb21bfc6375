package dpor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// BenchmarkCheckSweep checks the candidates of one delta-debugging level
// over the deliveries of the raft-45 failing trace (2,038 events: each
// candidate removes one chunk of 1/16 of the plan, in plan order, the way
// ddmin scans them), with 4 schedules per check (TFB), forked from
// snapshots of the check before and run in full from the start. It
// reports steps/s, steps counted as the minimizer counts its budget: the
// plan's length for every schedule run, whether a schedule re-executed
// the whole plan or started from a snapshot; skipped/step is the share of
// them that forked schedules did not re-execute.
func BenchmarkCheckSweep(b *testing.B) {
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", "raft-45.trace"), examples.Catalog())
	if err != nil {
		b.Fatal(err)
	}
	base := dpor.FromEvents(fingerprint.New(nil), tr.Events)
	var plans []dpor.Plan
	chunk := len(base) / 16
	for a := 0; a+chunk <= len(base); a += chunk {
		plans = append(plans, append(append(dpor.Plan(nil), base[:a]...), base[a+chunk:]...))
	}
	for _, full := range []bool{false, true} {
		name := "forked"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			c, err := dpor.New(dpor.Config{System: sys, Options: tr.Header.OptionMap(), Seed: tr.Header.Seed,
				Target: tr.Header.Violation.Fingerprint, Mode: dpor.TFB, MaxSchedules: 4, FullRuns: full})
			if err != nil {
				b.Fatal(err)
			}
			var steps int64
			for b.Loop() {
				for _, p := range plans {
					r, err := c.Check(context.Background(), p)
					if err != nil {
						b.Fatal(err)
					}
					steps += int64(r.Schedules) * int64(len(p))
				}
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
			_, skipped := c.ForkStats()
			b.ReportMetric(float64(skipped)/float64(steps), "skipped/step")
		})
	}
}
