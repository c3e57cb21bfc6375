package dpor

import (
	"fmt"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Transitions is the set of state transitions a run made, for the
// NoDiverge strategy. A transition is identified by the receiver, the
// fingerprint of the message it handled and the fingerprints (with
// receivers) of the messages and timers the handler sent.
type Transitions struct{ set map[uint64]struct{} }

func (t *Transitions) has(k uint64) bool {
	_, ok := t.set[k]
	return ok
}

// Observe replays events exactly on a fresh run and collects the
// transitions of its deliveries.
func Observe(sys *record.System, opts record.Options, seed uint64, events []record.Event, user fingerprint.Func) (*Transitions, error) {
	sim, err := record.NewSim(sys, opts, seed)
	if err != nil {
		return nil, err
	}
	c := &Checker{fp: fingerprint.For(sys, user)}
	gen := c.nextGen()
	t := &Transitions{set: map[uint64]struct{}{}}
	for i, e := range events {
		if e.Kind.IsExternal() {
			if err := sim.Apply(e); err != nil {
				return nil, fmt.Errorf("observe transitions: event %d: %w", i, err)
			}
			continue
		}
		m, ok := sim.Pending(e.ID)
		if !ok {
			return nil, fmt.Errorf("observe transitions: event %d: message #%d is not pending", i, e.ID)
		}
		before := len(sim.Events())
		if err := sim.Deliver(e.ID); err != nil {
			return nil, fmt.Errorf("observe transitions: event %d: %w", i, err)
		}
		t.set[c.transition(gen, sim, before, &m)] = struct{}{}
		if sim.Halted() != nil {
			break
		}
	}
	return t, nil
}

// transition identifies the delivery of m, which was recorded as event
// index before: receiver, message fingerprint and what the handler sent.
func (c *Checker) transition(gen uint32, sim *record.Sim, before int, m *record.Pending) uint64 {
	h := mixKey(c.fp.Of(m.To).Full, c.fpOf(gen, m).Full)
	var out uint64
	pend := sim.InFlight()
	for i := range pend {
		p := &pend[i]
		if p.Cause == before {
			out += mixKey(c.fp.Of(p.To).Full, c.fpOf(gen, p).Full)
		}
	}
	return mixKey(h, out)
}
