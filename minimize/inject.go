package minimize

import (
	"context"
	"errors"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// injectMove, the inject pass's trade, leaves out the deliveries of [cut, until) and inserts offer at at.
type injectMove struct {
	cut, until, at int
	offer          record.Event
}

// injects reports whether the system has fuzz generators.
func (m *minimizer) injects(context.Context) bool { return len(m.sys.Externals) > 0 }

// inject runs the inject pass on the best trace (injectWith).
func (m *minimizer) inject(ctx context.Context) error {
	return m.injectWith(ctx, func(events []record.Event, offers map[int][]record.Event) []injectMove {
		return injectMoves(events, offers, m.limitsOf(StageInject).moves)
	})
}

// addEvent runs the add-event pass (injectWith): an offer sending no message (a crash-restart) after the starts.
func (m *minimizer) addEvent(ctx context.Context) error {
	return m.injectWith(ctx, func(events []record.Event, offers map[int][]record.Event) []injectMove {
		var out []injectMove
		for p := afterStarts(events); p < len(events); p++ {
			for _, x := range offers[p] {
				if x.Kind != record.Send {
					out = append(out, injectMove{cut: p, until: p, at: p, offer: x})
				}
			}
		}
		return out
	})
}

// injectWith scans (scanMoves, from the first move each time) the moves movesOf lists for the best trace's offers.
func (m *minimizer) injectWith(ctx context.Context, movesOf func([]record.Event, map[int][]record.Event) []injectMove) error {
	return m.scanMoves(ctx, func(base *record.Trace) ([]edit, error) {
		offers, err := m.offers(ctx, base)
		var moves []edit
		for _, mv := range movesOf(base.Events, offers) {
			moves = append(moves, mv.plan)
		}
		return moves, err
	}, injectChunk, true, false)
}

// offers replays base once (counted as steps) and returns what the system offers before each cut
// (ownContents), and before each other position after the leading starts what sends no message.
func (m *minimizer) offers(ctx context.Context, base *record.Trace) (map[int][]record.Event, error) {
	cuts, out := injectCuts(base.Events), make(map[int][]record.Event, len(base.Events))
	d, err := record.NewDriver(base.Setup(m.sys), base.Events, record.Follow{})
	if err != nil {
		return nil, err
	}
	defer m.steps.Add(int64(len(base.Events)))
	first := afterStarts(base.Events)
	for p := range base.Events {
		if p >= first {
			xs := m.sys.Injections(d.Sim().View())
			if slices.Contains(cuts, p) {
				out[p] = ownContents(xs, base.Events, p)
			} else {
				out[p] = slices.DeleteFunc(xs, func(x record.Event) bool { return x.Kind == record.Send })
			}
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

// ownContents gives every offered client message the contents of events'
// own of its type (the latest before p, else the first after), once each.
func ownContents(offers, events []record.Event, p int) []record.Event {
	var out []record.Event
	seen := map[record.Shape]bool{}
	for _, x := range offers {
		if x.Kind == record.Send && x.Msg != nil {
			name, own := record.TypeName(x.Msg), -1
			for i, e := range events {
				if e.Kind == record.Send && record.TypeName(e.Msg) == name && (own < 0 || i < p) {
					own = i
				}
			}
			if own >= 0 {
				x.Msg = events[own].Msg
			}
		}
		if k := record.ShapeOf(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// injectCuts lists the stretch boundaries of events: the first event after
// the leading starts, then every timer firing and external event.
func injectCuts(events []record.Event) []int {
	first := afterStarts(events)
	var out []int
	for p := first; p < len(events); p++ {
		if e := events[p]; p == first || e.Kind.IsExternal() || e.Timer != "" {
			out = append(out, p)
		}
	}
	return out
}

// injectMoves lists at most most moves: cuts from the start, stretches longest first, positions, offers.
func injectMoves(events []record.Event, offers map[int][]record.Event, most int) []injectMove {
	cuts := injectCuts(events)
	var out []injectMove
	for i, c := range cuts {
		ends := append(slices.Clone(cuts[i+1:]), len(events))
		for j := len(ends) - 1; j >= 0; j-- {
			end := ends[j]
			n := 0 // the deliveries between actors the move leaves out
			for _, e := range events[c:end] {
				if e.Kind == record.Deliver && e.From != record.External {
					n++
				}
			}
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
					if x.Kind == record.Send && n <= 2 {
						continue // no trade: the plan would not be smaller (a client message adds its delivery)
					}
					out = append(out, injectMove{cut: c, until: end, at: p, offer: x})
					if len(out) == most {
						return out
					}
				}
			}
		}
	}
	return out
}

// plan builds the move's plan from bp: the stretch's deliveries between actors left out, the offer in, wildcards after.
func (mv injectMove) plan(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
	p := append(make(dpor.Plan, 0, len(bp)+2), bp[:mv.cut]...)
	for i := mv.cut; i <= len(bp); i++ {
		if i == mv.at {
			x := mv.offer
			p = append(p, dpor.Step{Event: x})
			if x.Kind == record.Send {
				p = append(p, dpor.Step{Event: record.Event{Kind: record.Deliver, From: x.From, To: x.To, Msg: x.Msg, Cause: -1}, FP: fp.Of(x.Msg)})
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
