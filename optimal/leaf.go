package optimal

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// The last step of a schedule (a leaf of the walk) is only checked for the
// violation, and most of the walk's steps are last steps. A delivery
// changes only its receiver, by a deterministic function of the
// receiver's state and the message, and a violation is a function of the
// actors' states (their values, storage, whether they run, and the cut
// links: what the actors key hashes). So two tables answer most leaves
// without running them:
//
//   - trans maps a receiver's state hash and a message's content key to the
//     receiver's state hash after the delivery;
//   - verdict maps the actors key after the delivery to whether that state
//     shows the violation searched for.
//
// A leaf whose transition and verdict are both known costs two lookups;
// any other is run (forked into the scratch run, delivered, checked) and
// its outcome remembered. A delivery that halts the run (a panic) is run
// every time. A search whose actors read the event clock or whose
// invariant reads the network (record.Sim.Observed) runs without the
// tables (see Search).
type memo struct {
	trans   map[uint64]uint64
	verdict map[uint64]bool
	idle    map[uint64]struct{} // deliveries known to be idle (see idle)
	hits    int
}

// maxMemo bounds each table; a full table is emptied (it is a cache).
const maxMemo = 4_000_000

func newMemo() *memo {
	return &memo{trans: map[uint64]uint64{}, verdict: map[uint64]bool{}, idle: map[uint64]struct{}{}}
}

// transKey names a delivery to actor a, of the message with content key
// ck, from f's state of a.
func transKey(f *frame, a int, ck uint64) uint64 { return mix(f.ah[a], ck, 0x1eaf) }

// leaf checks the delivery of p from f, an expanded state (its actor
// hashes and actors key are up to date), as the last step of a schedule.
func (s *walker) leaf(f *frame, p record.Pending) {
	m := s.memo
	a := s.index[p.To]
	tk := transKey(f, a, s.ckey[p.ID])
	if h, ok := m.trans[tk]; ok {
		if found, ok := m.verdict[f.ak-actorTerm(a, f.ah[a])+actorTerm(a, h)]; ok {
			m.hits++
			if found {
				s.reproduced(&decision{kind: decDeliver, id: p.ID})
			}
			return
		}
	}
	s.steps++
	sim := s.fork(f.sim, true)
	if err := sim.Deliver(p.ID); err != nil {
		s.fail(fmt.Errorf("optimal: delivering %s: %w", record.FormatMessage(p.Msg), err))
		return
	}
	if err := sim.ForkError(); err != nil {
		s.fail(fmt.Errorf("optimal: %w", err))
		return
	}
	v := sim.Check()
	if clock, network := sim.Observed(); clock || network {
		s.fail(errObserved)
		return
	}
	found := v.Same(s.want)
	if found {
		s.reproduced(&decision{kind: decDeliver, id: p.ID})
	}
	if sim.Halted() != nil {
		return
	}
	if len(m.trans) >= maxMemo || len(m.verdict) >= maxMemo {
		clear(m.trans)
		clear(m.verdict)
	}
	h := s.actorHash(sim, a)
	m.trans[tk] = h
	m.verdict[f.ak-actorTerm(a, f.ah[a])+actorTerm(a, h)] = found
}
