package record

import "cmp"

// Causality is the happens-before relation of a schedule, as one vector
// clock per event. Processes are the actors plus one pseudo-process for the
// external world, which orders all external events. A delivery happens on
// its receiver after the event that sent the message; start, kill and
// restart happen on both the external process and their actor.
type Causality struct {
	n     int     // processes: members + external
	clock []int32 // len(events) * n
	proc  []int32 // a process of each event
}

// NewCausality computes vector clocks for events run over members.
func NewCausality(members []ActorID, events []Event) *Causality {
	n := len(members) + 1
	idx := make(map[ActorID]int, n)
	for i, id := range members {
		idx[id] = i
	}
	idx[External] = n - 1
	c := &Causality{n: n, clock: make([]int32, len(events)*n), proc: make([]int32, len(events))}
	last := make([]int, n) // last event index+1 of each process
	var procs [2]int
	for i, e := range events {
		ps := procs[:0]
		switch e.Kind {
		case Deliver:
			if p, ok := idx[e.To]; ok {
				ps = append(ps, p)
			}
		case Start, Kill, Restart:
			ps = append(ps, n-1)
			if p, ok := idx[e.Actor]; ok {
				ps = append(ps, p)
			}
		default:
			ps = append(ps, n-1)
		}
		vc := c.clock[i*n : (i+1)*n]
		for _, p := range ps {
			if l := last[p]; l > 0 {
				maxInto(vc, c.clock[(l-1)*n:l*n])
			}
		}
		if e.Kind == Deliver && e.Cause >= 0 && e.Cause < i {
			maxInto(vc, c.clock[e.Cause*n:(e.Cause+1)*n])
		}
		for _, p := range ps {
			vc[p]++
			last[p] = i + 1
		}
		if len(ps) > 0 {
			c.proc[i] = int32(ps[0])
		} else {
			c.proc[i] = -1
		}
	}
	return c
}

func maxInto(dst, src []int32) {
	for k, v := range src {
		if v > dst[k] {
			dst[k] = v
		}
	}
}

// HappensBefore reports whether event i happens before event j.
func (c *Causality) HappensBefore(i, j int) bool {
	if i >= j || c.proc[i] < 0 {
		return false
	}
	p := c.proc[i]
	return c.clock[i*c.n+int(p)] <= c.clock[j*c.n+int(p)]
}

// Concurrent reports whether neither of i and j happens before the other.
func (c *Causality) Concurrent(i, j int) bool {
	return i != j && !c.HappensBefore(i, j) && !c.HappensBefore(j, i)
}

// Clock returns the vector clock of event i (owned by c): one entry per
// member, in order, then the external process.
func (c *Causality) Clock(i int) []int32 { return c.clock[i*c.n : (i+1)*c.n] }

// Past returns, for each event, whether it is in the causal past of (or
// is one of) the events in targets.
func (c *Causality) Past(targets ...int) []bool {
	out := make([]bool, len(c.proc))
	for i := range out {
		for _, t := range targets {
			if i == t || c.HappensBefore(i, t) {
				out[i] = true
				break
			}
		}
	}
	return out
}

// ActorPast returns, for each of events[:d+1], whether it is in the causal past of event d or is d, each
// external event counted at the actor it acts on (Causality puts them all in one process): the earlier events
// of d's actor, and for each delivery in that past the send of its message and what came before it there.
func ActorPast(events []Event, d int) []bool {
	need, active := make([]bool, d+1), map[ActorID]bool{}
	need[d] = true
	for i := d; i >= 0; i-- {
		e := events[i]
		if a := cmp.Or(e.Actor, e.To); need[i] || active[a] {
			need[i], active[a] = true, true
			if e.Kind == Deliver && e.Cause >= 0 {
				need[e.Cause] = true
			}
		}
	}
	return need
}
