package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// The inject pass trades deliveries for an external event the best trace
// does not have. The removals only take events away and the other moves
// rearrange the ones the trace has, so when the cheapest route to the
// violation needs an external event the fuzzed run never drew (a client
// write where the run filled a log through elections, a crash-restart
// that drops what was queued for a member) no other pass reaches it.
//
// The events come from the system: record.System.Injections lists what
// its fuzz generators could inject in a state (a client request to each
// member, a restart of each running one, ...), under the trace's options,
// so the pass stays inside the run's fault model and knows nothing of the
// protocol. A client message of a type the trace already sends takes the
// contents of the trace's own (the latest before the cut, else the first
// after it), so that what the trace's violation names stays named.
//
// A move cuts the best trace at a stretch boundary (the trace's first
// event after its leading starts, and every timer firing or external event
// after it: where a new stretch of activity begins), leaves out every
// delivery between actors from the cut up to a later boundary (or the end
// of the trace), keeping the external events of that stretch and their
// deliveries, and inserts one offered event (a client message with its
// delivery right after it): at the cut, at the end of the stretch (a
// crash-restart there drops what the stretch left queued for its member:
// under FIFO, a message not delivered blocks its link), or, when the
// stretch is the trace's prefix, at any boundary after it (what the
// prefix provided may be needed only later). The stretch leaves out more
// than the offer adds. The deliveries after the cut are wildcards, and
// the plan is checked with backtracks on messages of any type (the new
// route may need another delivery where the old one had its own), at most
// injectSchedules schedules. A move whose run reproduces the violation and is
// smaller than the best trace wins as it is; the driver's removal tier
// then takes away what the new route no longer needs. One that reproduces
// at a cost no smaller gets a descent (reorder.go) and wins when the
// descent ends smaller.
//
// Moves are tried in a fixed order (cuts from the start, longer stretches
// first, offered events in the system's order), the first winning one in
// that order wins, and the offers are read from one replay of the best
// trace counted as steps, so the result does not depend on the number of
// workers.

// injectMove is one move: the deliveries of [cut, until) left out, offer
// inserted at position at (a boundary: cut, until or later).
type injectMove struct {
	cut, until, at int
	offer          record.Event
}

// injects reports whether the inject pass applies: the system has fuzz
// generators to draw external events from.
func (m *minimizer) injects(context.Context) bool { return len(m.sys.Externals) > 0 }

// inject runs the inject pass once on the best trace: the first winning
// move in order replaces it.
func (m *minimizer) inject(ctx context.Context) error {
	base := m.snapshotBest()
	offers, err := m.offers(ctx, base)
	if err != nil {
		return err
	}
	moves := injectMoves(base.Events, offers)
	bp := dpor.FromEvents(m.fp, base.Events)
	_, tr, err := m.firstTrace(ctx, len(moves), injectChunk, func(c *dpor.Checker, i int) (*record.Trace, int64, error) {
		return m.tryInjection(ctx, c, base, moves[i].plan(c.Fingerprinter(), bp))
	})
	if err != nil || tr == nil {
		return err
	}
	m.offer(tr)
	return nil
}

// offers replays base once and returns, for every cut position of base,
// the events the system offers in the state before it, with the trace's
// own contents for message types it sends. The replay counts as steps.
func (m *minimizer) offers(ctx context.Context, base *record.Trace) (map[int][]record.Event, error) {
	cuts := injectCuts(base.Events)
	out := make(map[int][]record.Event, len(cuts))
	d, err := record.NewDriver(base.Setup(m.sys), base.Events, record.Follow{})
	if err != nil {
		return nil, err
	}
	defer m.steps.Add(int64(len(base.Events)))
	k := 0
	for p := range base.Events {
		if k < len(cuts) && cuts[k] == p {
			k++
			out[p] = ownContents(m.sys.Injections(d.Sim().View()), base.Events, p)
		}
		if k == len(cuts) {
			break
		}
		if _, err := d.Next(ctx); err != nil {
			if errors.Is(err, record.ErrScheduleEnd) {
				break
			}
			return nil, err
		}
	}
	return out, nil
}

// ownContents gives every offered client message of a type events sends
// from outside the contents of events' own: the latest before position p,
// else the first after it. Offers that end up the same are listed once.
func ownContents(offers, events []record.Event, p int) []record.Event {
	var out []record.Event
	seen := map[string]bool{}
	for _, x := range offers {
		if x.Kind == record.Send && x.Msg != nil {
			name := record.TypeName(x.Msg)
			own := -1
			for i, e := range events {
				if e.Kind == record.Send && record.TypeName(e.Msg) == name && (own < 0 || i < p) {
					own = i
				}
			}
			if own >= 0 {
				x.Msg = events[own].Msg
			}
		}
		if k := fmt.Sprint(shapeOf(x), x.A, x.B); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// injectCuts lists the stretch boundaries of events, in order: the first
// event after the leading starts, then every timer firing and every
// external event after it.
func injectCuts(events []record.Event) []int {
	first := 0
	for first < len(events) && events[first].Kind == record.Start {
		first++
	}
	var out []int
	for p := first; p < len(events); p++ {
		if e := events[p]; p == first || e.Kind.IsExternal() || e.Timer != "" {
			out = append(out, p)
		}
	}
	return out
}

// injectMoves lists the moves of events, in order: cuts from the start;
// at each, the stretches that end at a later boundary or at the end of
// the trace, longest first, each leaving out more deliveries between
// actors than the offer adds (a trade); for each stretch, the offer positions in order (the
// cut, the end of the stretch, and, for a stretch from the trace's first
// cut, every boundary after it: what the left-out prefix provided may be
// needed only later); at each position, its offers in order.
func injectMoves(events []record.Event, offers map[int][]record.Event) []injectMove {
	cuts := injectCuts(events)
	var out []injectMove
	for i, c := range cuts {
		ends := append(slices.Clone(cuts[i+1:]), len(events))
		for j := len(ends) - 1; j >= 0; j-- {
			end := ends[j]
			n := deliveriesIn(events, c, end)
			if n < 2 {
				continue
			}
			at := []int{c}
			if end < len(events) {
				at = append(at, end)
				if i == 0 {
					at = append(at, ends[j+1:len(ends)-1]...)
				}
			}
			for _, p := range at {
				for _, x := range offers[p] {
					if n <= injectCost(x) {
						continue // no trade: the plan would not be smaller
					}
					out = append(out, injectMove{cut: c, until: end, at: p, offer: x})
					if len(out) == maxInjectMoves {
						return out
					}
				}
			}
		}
	}
	return out
}

// injectCost is what inserting x adds to a trace: a client message and
// its delivery, or one event.
func injectCost(x record.Event) int {
	if x.Kind == record.Send {
		return 2
	}
	return 1
}

// deliveriesIn counts the deliveries between actors of events[from:to].
func deliveriesIn(events []record.Event, from, to int) int {
	n := 0
	for _, e := range events[from:to] {
		if e.Kind == record.Deliver && e.From != record.External {
			n++
		}
	}
	return n
}

// plan builds the move's plan from the best trace's plan bp: the
// deliveries of the stretch between actors left out (a client message's
// delivery stays with its send), the offer inserted at its position (a
// client message with its delivery), every delivery after the cut a
// wildcard.
func (mv injectMove) plan(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
	p := make(dpor.Plan, 0, len(bp)+2)
	p = append(p, bp[:mv.cut]...)
	for i := mv.cut; i <= len(bp); i++ {
		if i == mv.at {
			x := mv.offer
			p = append(p, dpor.Step{Event: x})
			if x.Kind == record.Send {
				d := record.Event{Kind: record.Deliver, From: x.From, To: x.To, Msg: x.Msg, Cause: -1}
				p = append(p, dpor.Step{Event: d, FP: fp.Of(x.Msg)})
			}
		}
		if i == len(bp) {
			break
		}
		st := bp[i]
		if !st.Event.Kind.IsExternal() {
			if i < mv.until && st.Event.From != record.External {
				continue
			}
			st.Wildcard = true
		}
		p = append(p, st)
	}
	return p
}

// tryInjection checks plan, with backtracks on any message type; a run
// that reproduces the violation and is smaller than base is returned as it
// is, one that is not gets a descent (as a retarget move does). It returns a trace smaller than base, or nil,
// and the steps it ran.
func (m *minimizer) tryInjection(ctx context.Context, c *dpor.Checker, base *record.Trace, plan dpor.Plan) (*record.Trace, int64, error) {
	c.SetMode(dpor.TFB)
	c.SetMaxSchedules(injectSchedules)
	c.SetBroad(true)
	r, err := c.Check(ctx, plan)
	m.ran(c, r.Schedules)
	steps := int64(r.Schedules) * int64(len(plan))
	if err != nil || r.Trace == nil {
		return nil, steps, err
	}
	if smaller(r.Trace, base) {
		return r.Trace, steps, nil
	}
	c.SetMaxSchedules(reorderSchedules)
	c.SetBroad(false)
	fifo := m.fifo()
	cur, more, err := m.descent(ctx, c, r.Trace, reorderDescentChecks, func(events []record.Event) [][]int {
		return removals(events, fifo)
	})
	steps += more
	if err != nil || !smaller(cur, base) {
		return nil, steps, err
	}
	return cur, steps, nil
}
