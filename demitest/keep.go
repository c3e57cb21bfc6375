package demitest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// maxViewEvents bounds the events of a trace shown in a failure message.
const maxViewEvents = 200

// keep writes the failing trace found by fuzzing, minimizes it, writes
// the minimized trace beside it and fails t with the report.
func keep(ctx context.Context, t testing.TB, sys *record.System, c config, found *record.Trace, res *Result) {
	t.Helper()
	v := found.Header.Violation
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Errorf("demi: found %s at seed %d but cannot keep the trace: %v", v.Fingerprint, res.Seed, err)
		return
	}
	stem, err := freeStem(filepath.Join(c.dir, fmt.Sprintf("seed-%d", res.Seed)))
	if err != nil {
		t.Errorf("demi: found %s at seed %d but cannot keep the trace: %v", v.Fingerprint, res.Seed, err)
		return
	}
	res.Failing = stem + ".trace"
	if err := found.WriteFile(res.Failing); err != nil {
		t.Errorf("demi: found %s at seed %d but cannot keep the trace: %v", v.Fingerprint, res.Seed, err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "demi: fuzzing %s found a violation at seed %d (run %d)\nviolation %s\n  %s\n",
		sys.Name, res.Seed, res.Runs, v.Fingerprint, v.Detail)
	fmt.Fprintf(&b, "failing trace:   %s (%d deliveries, %d externals)\n", res.Failing, found.Header.Deliveries, found.Header.Externals)
	shown := res.Failing
	if c.minimize {
		m, err := minimize.Run(ctx, sys, found, minimize.Config{Budget: c.minimizeBudget, Fingerprint: c.fingerprint})
		if err != nil {
			fmt.Fprintf(&b, "minimization failed: %v\n", err)
		} else {
			res.Minimized = stem + ".min.trace"
			if err := m.Trace.WriteFile(res.Minimized); err != nil {
				fmt.Fprintf(&b, "writing the minimized trace failed: %v\n", err)
				res.Minimized = ""
			} else {
				shown = res.Minimized
				fmt.Fprintf(&b, "minimized trace: %s (%d deliveries, %d externals)\n",
					res.Minimized, m.Final.Deliveries, m.Final.Externals)
				t.Logf("demi: minimized %s in %.1fs (%d schedules)", res.Failing, sumSeconds(m.Stages), sumSchedules(m.Stages))
			}
		}
	}
	text, rounded := view(ctx, sys, shown)
	b.WriteString("\n")
	b.WriteString(text)
	b.WriteString("\n")
	b.WriteString(commands(c, shown, rounded, t.Name(), fmt.Sprintf("-demi.seed=%d -demi.runs=1", res.Seed)))
	t.Errorf("%s", b.String())
}

// view renders the trace at path for a failure message: round by round
// when its messages carry rounds (rounded), else as the event table of
// demi show.
func view(ctx context.Context, sys *record.System, path string) (text string, rounded bool) {
	tr, _, err := record.ReadFile(path, record.NewCatalog(sys))
	if err != nil {
		return fmt.Sprintf("(cannot show %s: %v)\n", path, err), false
	}
	lay, err := rounds.Build(ctx, sys, tr)
	rounded = err == nil && lay.Rounded
	if len(tr.Events) > maxViewEvents {
		return fmt.Sprintf("(%d events: too many to show here; see demi show below)\n", len(tr.Events)), rounded
	}
	if rounded {
		var buf bytes.Buffer
		if err := lay.Write(&buf); err == nil {
			return buf.String(), true
		}
	}
	var out bytes.Buffer
	cli.Run(ctx, record.NewCatalog(sys), []string{"show", path}, &out, &out)
	return out.String(), rounded
}

// freeStem returns stem, or stem-2, stem-3, ...: the first for which
// neither stem.trace nor stem.min.trace exists.
func freeStem(stem string) (string, error) {
	for i := 1; i <= 1000; i++ {
		s := stem
		if i > 1 {
			s = fmt.Sprintf("%s-%d", stem, i)
		}
		if !exists(s+".trace") && !exists(s+".min.trace") {
			return s, nil
		}
	}
	return "", fmt.Errorf("no free name like %s.trace", stem)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func sumSeconds(stages []minimize.StageStats) float64 {
	s := 0.0
	for _, st := range stages {
		s += st.Seconds
	}
	return s
}

func sumSchedules(stages []minimize.StageStats) int64 {
	var n int64
	for _, st := range stages {
		n += st.Schedules
	}
	return n
}
