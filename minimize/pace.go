package minimize

import "math"

// A removals-only start of the beam (beam.go) is a race with the first
// start: it pays only when it ends smaller, and on most inputs it ends
// larger, its removals stuck on a route that keeps most of the trace. So it
// keeps going only while it keeps pace with the first start: once it has
// spent paceRatio times the steps the first start took to get below its
// present size (at least minCallSteps), it ends. A start that falls behind
// by that much has, on the measured inputs, never caught up
// (docs/minimization.md, "The beam").

// lead is the first start's pace, as a start that follows it sees it.
type lead struct {
	// from is where the follower started, in steps; pace the first start's
	// improvements, steps counted from its own start.
	from int64
	pace []PacePoint
}

// follow makes f, a removals-only start about to run, keep pace with
// first, the first start, which has run.
func (f *minimizer) follow(first *minimizer) {
	l := &lead{from: f.steps.Load()}
	first.mu.Lock()
	start := first.forkedAt
	for _, p := range first.pace {
		p.Steps -= start
		l.pace = append(l.pace, p)
	}
	first.mu.Unlock()
	f.lead = l
	f.paceEnd.Store(l.end(total(f.best)))
}

// end returns where a follower whose best trace has size total must end:
// no bound when the first start never got below it.
func (l *lead) end(total int) int64 {
	for _, p := range l.pace {
		if p.Deliveries+p.Externals < total {
			return l.from + max(minCallSteps, paceRatio*p.Steps)
		}
	}
	return math.MaxInt64
}
