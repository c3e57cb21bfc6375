package minimize_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

func shipped(b *testing.B, bug string) (*record.System, *record.Trace) {
	b.Helper()
	tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", bug+".trace"), record.NewCatalog(raft.System()))
	if err != nil {
		b.Skip(err)
	}
	return sys, tr
}

// BenchmarkSTSSchedRaft45 runs the STSSched schedule of the whole raft-45
// failing trace (1,930 deliveries): the most expensive kind of schedule.
func BenchmarkSTSSchedRaft45(b *testing.B) {
	sys, tr := shipped(b, "raft-45")
	c, err := dpor.New(dpor.Config{System: sys, Options: tr.Header.OptionMap(), Seed: tr.Header.Seed,
		Target: tr.Header.Violation.Fingerprint, Mode: dpor.STS})
	if err != nil {
		b.Fatal(err)
	}
	plan := dpor.FromEvents(fingerprint.New(nil), tr.Events)
	b.ResetTimer()
	for b.Loop() {
		res, err := c.Check(context.Background(), plan)
		if err != nil || res.Trace == nil {
			b.Fatal("not reproduced", err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
}

// BenchmarkMinimize minimizes shipped failing traces end to end and reports
// the schedules executed per second (the DEMi paper's Table 2 measures the
// same: raft-45 2,854 schedules in 114 s, raft-58b 1,747 in 31 s).
func BenchmarkMinimize(b *testing.B) {
	for _, bug := range []string{"raft-45", "raft-58b"} {
		b.Run(bug, func(b *testing.B) {
			sys, tr := shipped(b, bug)
			var schedules int64
			var seconds float64
			for b.Loop() {
				res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Budget: 2 * time.Minute, Workers: runtime.NumCPU()})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range res.Stages {
					schedules += s.Schedules
					seconds += s.Seconds
				}
				b.ReportMetric(float64(res.Trace.Header.Deliveries), "deliveries")
			}
			b.ReportMetric(float64(schedules)/seconds, "schedules/s")
		})
	}
}
