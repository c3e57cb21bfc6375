package dpor

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/hashing"
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

// Observe replays events exactly on a fresh run (a record.Driver, the
// invariant checked only at the end) and collects the transitions of its
// deliveries. want is the violation the events end in (nil for none): a
// handler that panics with it at the last step ends the run as recorded,
// where any other panic is a divergence.
func Observe(sys *record.System, opts record.Options, seed uint64, events []record.Event, want *record.Violation, user fingerprint.Func) (*Transitions, error) {
	c := &Checker{fp: fingerprint.For(sys, user)}
	gen := c.nextGen()
	t := &Transitions{set: map[uint64]struct{}{}}
	d, err := record.NewDriver(record.Setup{System: sys, Options: opts, Seed: seed}, events, record.Follow{
		CheckEvery: record.CheckAtEnd,
		Want:       want,
		Observe: func(sim *record.Sim, o *record.Outcome) bool {
			if o.Delivered.ID != 0 {
				t.set[c.transition(gen, sim, o.Event, &o.Delivered)] = struct{}{}
			}
			return true
		},
	})
	if err != nil {
		return nil, err
	}
	if err := d.Run(context.Background()); err != nil {
		return nil, err
	}
	if div := d.Divergence(); div != nil {
		return nil, fmt.Errorf("observe transitions: %s", div)
	}
	return t, nil
}

// transition identifies the delivery of m, which was recorded as event
// index before: receiver, message fingerprint and what the handler sent.
func (c *Checker) transition(gen uint32, sim *record.Sim, before int, m *record.Pending) uint64 {
	h := hashing.Mix(c.fp.Of(m.To).Full, c.fpOf(gen, m).Full)
	var out uint64
	pend := sim.InFlight()
	for i := range pend {
		p := &pend[i]
		if p.Cause == before {
			out += hashing.Finish(hashing.Mix(c.fp.Of(p.To).Full, c.fpOf(gen, p).Full)) // summed: order-independent
		}
	}
	return hashing.Mix(h, out)
}
