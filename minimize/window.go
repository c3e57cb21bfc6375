package minimize

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// windowFirst is the initial check of a long trace (docs/minimization.md, "Long traces"): the first window
// (windowCandidates) that reproduces; nil when none does or budget (the run's deadline) ends first, or under nodiverge.
func (m *minimizer) windowFirst(ctx, budget context.Context, t *record.Trace) (*record.Trace, error) {
	if m.mode == dpor.NoDiverge || t.Header.Deliveries < longTrace {
		return nil, nil
	}
	cands := windowCandidates(t.Events, t.Header.Violation.Event)
	if len(cands) == 0 {
		return nil, nil
	}
	if err := m.newChecks(); err != nil {
		return nil, err
	}
	bp := dpor.FromEvents(m.fp, t.Events)
	_, tr, err := m.first(budget, len(cands), dpor.TFB, m.cfg.MaxSchedules, func(_ *fingerprint.Fingerprinter, k int) dpor.Plan {
		c := cands[k]
		return append(planOf(bp, c.setup, -1), bp[c.start:c.end]...).Wildcards(len(c.setup))
	})
	if ctx.Err() != nil || err != nil && budget.Err() == nil {
		return nil, fmt.Errorf("minimize: trying windows of the input: %w", cmp.Or(ctx.Err(), err))
	}
	return tr, nil
}

// windowCandidate is the events at setup followed by events[start:end].
type windowCandidate struct {
	setup      []int
	start, end int
}

// windowCandidates returns, shortest first, for each length 32, 64, ... up to half the trace, the window
// ending with the violation's event v, started at a quiescent point where one makes it about that long.
func windowCandidates(events []record.Event, v int) []windowCandidate {
	if v < 0 || v >= len(events) {
		v = len(events) - 1
	}
	setup, end := leading(events, record.Kind.IsExternal), v+1
	if end-setup < 4*minWindow {
		return nil
	}
	var setupDeliveries []int // the setup's own messages' deliveries go with the setup
	for j := setup; j < end; j++ {
		if e := &events[j]; e.Kind == record.Deliver && e.Cause >= 0 && e.Cause < setup {
			setupDeliveries = append(setupDeliveries, j)
		}
	}
	quiet := quiescentPoints(events[:end], setup)
	var out []windowCandidate
	prev := end
	for n := minWindow; n <= (end-setup)/2; n *= 2 {
		start := end - n
		// The latest quiescent point at or before start, back to the next length.
		q := start
		for q > setup && q > end-2*n && !quiet[q] {
			q--
		}
		if quiet[q] {
			start = q
		}
		if start >= prev {
			continue
		}
		prev = start
		n, _ := slices.BinarySearch(setupDeliveries, start)
		idx := make([]int, setup, setup+n)
		for i := range idx {
			idx[i] = i
		}
		out = append(out, windowCandidate{setup: append(idx, setupDeliveries[:n]...), start: start, end: end})
	}
	return out
}

// quiescentPoints reports, for every position k of events, whether cutting
// there leaves no message sent from setup on in flight (timers aside).
func quiescentPoints(events []record.Event, setup int) []bool {
	// open[k] = number of non-timer deliveries j >= k whose cause c has
	// setup <= c < k: each contributes to the positions c+1 .. j.
	diff := make([]int32, len(events)+2)
	for j, e := range events {
		if e.Kind != record.Deliver || e.Timer != "" || e.Cause < setup || e.Cause >= j {
			continue
		}
		diff[e.Cause+1]++
		diff[j+1]--
	}
	quiet, open := make([]bool, len(events)+1), int32(0)
	for k := 0; k <= len(events); k++ {
		open += diff[k]
		quiet[k] = open == 0
	}
	return quiet
}
