package minimize

import (
	"cmp"
	"context"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/ddmin"
	"github.com/demi-project/demi/record"
)

// ddminPass is ddmin over the best trace's external units, or deliveries when internals, checked in mode with
// at most maxSched schedules (0: budgetFor), the deliveries from wildFrom on wildcards (-1: none).
func (m *minimizer) ddminPass(ctx context.Context, internals bool, mode dpor.Mode, maxSched, wildFrom int) error {
	base := m.snapshotBest()
	items, plan := ddminSets(dpor.FromEvents(m.fp, base.Events), base.Events, internals, wildFrom)
	_, err := ddmin.Minimize(ctx, items, func(ctx context.Context, cands [][]int) (int, error) {
		i, tr, err := m.first(ctx, len(cands), mode, cmp.Or(maxSched, m.budgetFor()), func(_ *fingerprint.Fingerprinter, k int) dpor.Plan {
			return plan(cands[k])
		})
		m.offer(tr)
		return i, err
	})
	return err
}

// ddminSets returns the items of ddmin over events (the external units, or every delivery when internals) and the
// plan of a set of items (wildcards from wildFrom), every event of the other kind kept (but validExternals).
func ddminSets(bp dpor.Plan, events []record.Event, internals bool, wildFrom int) (items []int, plan func(set []int) dpor.Plan) {
	dels := deliveryIndices(events)
	var units [][]int
	if internals {
		for _, d := range dels {
			units = append(units, []int{d})
		}
	} else {
		units = externalUnits(events)
	}
	ext := indicesOf(events, record.Kind.IsExternal)
	for i := range units {
		items = append(items, i)
	}
	return items, func(set []int) dpor.Plan {
		var idx []int
		for _, u := range set {
			idx = append(idx, units[u]...)
		}
		slices.Sort(idx)
		if internals {
			return planOf(bp, ddmin.Union(ext, idx), wildFrom)
		}
		return planOf(bp, ddmin.Union(validExternals(events, idx), dels), wildFrom)
	}
}
