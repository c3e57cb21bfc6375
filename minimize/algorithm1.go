package minimize

import (
	"context"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/ddmin"
	"github.com/demi-project/demi/record"
)

// Check is how DDMin checks one candidate plan: the reproducing trace, or
// nil (a study passes a dpor.Checker's Check configured as it measures).
type Check func(ctx context.Context, plan dpor.Plan) (*record.Trace, error)

// DDMin runs delta debugging alone on t (the paper's Algorithm 1, for studies) as ddmin-externals,
// or ddmin-internals when internals, every delivery a wildcard when wild. It returns the smallest
// reproducing trace found (t when none; the best so far on an error) and the checks made.
func DDMin(ctx context.Context, fp *fingerprint.Fingerprinter, t *record.Trace, internals, wild bool, check Check) (*record.Trace, int, error) {
	wildFrom := -1
	if wild {
		wildFrom = 0
	}
	items, plan := ddminSets(dpor.FromEvents(fp, t.Events), t.Events, internals, wildFrom)
	best, checked := t, 0
	_, err := ddmin.Minimize(ctx, items, func(ctx context.Context, cands [][]int) (int, error) {
		for k, c := range cands {
			checked++
			tr, err := check(ctx, plan(c))
			if err != nil {
				return -1, err
			}
			if tr != nil {
				if smaller(tr, best) {
					best = tr
				}
				return k, nil
			}
		}
		return -1, nil
	})
	return best, checked, err
}
