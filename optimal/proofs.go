package optimal

import (
	"fmt"
	"sync"

	"github.com/demi-project/demi/internal/eventkey"
	"github.com/demi-project/demi/record"
)

// Proofs remembers what exhausted Subsets searches proved, so that a
// search they cover is answered without walking (Config.Proofs). A Search
// with Subsets that covers every schedule up to its bound and finds
// nothing proves that no subsequence of the trace's external events, with
// any schedule of the deliveries they enable, costs that bound or less. A
// later Search of the same system, options and seed whose external events
// are a subsequence of that search's, with a bound no higher, would walk a
// part of the same space and find nothing: it returns Exhausted at once,
// with the Steps of the search that proved it (a caller that counts its
// work in steps, as minimize does, counts it as if it ran again, so the
// answer changes no step count). SearchFrom, Insert and Last searches are
// neither answered nor remembered. The zero value is empty and ready; a
// Proofs is safe for concurrent use.
type Proofs struct {
	mu   sync.Mutex
	list []proof
}

type proof struct {
	setup     string   // the system, options and seed searched
	externals []string // the external events searched, each encoded (proofKeys)
	bound     int      // the cost bound the search covered
	steps     int      // its Result.Steps
}

// answer returns the Steps of a proof that covers a search of externals
// up to bound in setup; nil externals (proofKeys could not encode them, or
// none) are never covered.
func (p *Proofs) answer(setup string, externals []string, bound int) (int, bool) {
	if externals == nil {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.list {
		if q.setup == setup && bound <= q.bound && subsequence(externals, q.externals) {
			return q.steps, true
		}
	}
	return 0, false
}

func (p *Proofs) add(q proof) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, q)
}

// Covers reports whether a remembered proof covers t: no subsequence of
// t's external events, with any schedule of the deliveries they enable,
// reproduces t's violation at a cost (deliveries plus external events) of
// bound or less. With bound one less than t's own cost, t is optimal over
// its external events and their subsequences, as demi optimal --subsets
// would report. Proofs remember no violation: t must be of the searches'
// violation (minimize asks about its result, of its input's fingerprint).
func (p *Proofs) Covers(t *record.Trace, bound int) bool {
	setup, keys := proofKeys(t, t.Externals())
	_, ok := p.answer(setup, keys, bound)
	return ok
}

// Len returns the number of proofs remembered.
func (p *Proofs) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.list)
}

// subsequence reports whether a's elements occur in b in the same order.
func subsequence(a, b []string) bool {
	i := 0
	for _, x := range b {
		if i < len(a) && a[i] == x {
			i++
		}
	}
	return i == len(a)
}

// proofKeys encodes t's setup and external events as a search applies
// them (record.Sim.Apply sets ID and Cause itself); keys is nil when a
// message cannot be encoded or there is no external event.
func proofKeys(t *record.Trace, externals []record.Event) (setup string, keys []string) {
	setup = fmt.Sprint(t.Header.System, "\x00", t.Header.Seed, "\x00", t.Header.OptionMap())
	for _, e := range externals {
		e.ID, e.Cause = 0, 0
		b, ok := eventkey.Append(nil, &e)
		if !ok {
			return setup, nil
		}
		keys = append(keys, string(b))
	}
	return setup, keys
}
