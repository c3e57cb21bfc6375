package optimal

import (
	"fmt"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// build follows the decisions of a path through a record.Driver into a
// trace, and verifies it by exact replay.
func (s *search) build(path []decision) (*record.Trace, error) {
	d, err := record.NewDriver(s.setup, nil, record.Follow{CheckEvery: record.CheckAtEnd})
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	for i, e := range s.prefix {
		if e.Kind == record.Deliver {
			_, err = d.Deliver(s.ctx, e.ID)
		} else {
			_, err = d.Apply(s.ctx, e)
		}
		if err != nil {
			return nil, fmt.Errorf("optimal: replaying the prefix's event %d (%s): %w", i, e, err)
		}
	}
	ext := 0
	for _, x := range path {
		switch x.kind {
		case decApply:
			if _, err := d.Apply(s.ctx, s.externals[ext]); err != nil {
				return nil, fmt.Errorf("optimal: external event %d (%s): %w", ext, s.externals[ext], err)
			}
			ext++
		case decSkip:
			ext++
		case decInsert:
			if _, err := d.Apply(s.ctx, s.cfg.Insert[x.id]); err != nil {
				return nil, fmt.Errorf("optimal: inserted event %s: %w", s.cfg.Insert[x.id], err)
			}
		case decDeliver:
			if _, err := d.Deliver(s.ctx, x.id); err != nil {
				return nil, fmt.Errorf("optimal: replaying the schedule found: %w", err)
			}
		}
	}
	sim := d.Sim()
	v := sim.Check()
	if v == nil || !v.Same(s.want) {
		return nil, fmt.Errorf("optimal: internal error: the schedule found does not reproduce %s", s.want.Fingerprint)
	}
	tr := sim.Trace(v)
	what := "the external events of the input, in order"
	if s.cfg.Subsets {
		what = "a subsequence of the input's external events"
	}
	tr.Header.Note = fmt.Sprintf("optimal: cheapest schedule with %s (%d deliveries, %d externals)", what, sim.NumDeliveries(), sim.NumExternals())
	r, err := replay.Run(s.ctx, s.sys, tr)
	if err != nil {
		return nil, fmt.Errorf("optimal: verifying the result: %w", err)
	}
	if !r.Reproduced {
		return nil, fmt.Errorf("optimal: the result does not replay: %v", r.Divergence)
	}
	return tr, nil
}
