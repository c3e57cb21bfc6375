package optimal

import (
	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
)

// How the search names a state. Two keys, both sums of per-part terms so
// that a step updates them by the parts it changed:
//
//   - the global key (globalKey): what the run is, every actor's state, the
//     pending messages, the cut links and the next external event;
//   - the history key (histKey): how every actor got there, its local
//     history of deliveries and external events. Equal histories mean equal
//     states (a run is deterministic and deliveries to different actors
//     commute), so it can be computed for a successor before the step is
//     taken.

// contentKey identifies a message by its link and what it is, not by its
// ID (IDs depend on the interleaving): sender, receiver, timer key and
// fingerprint (type and every field).
func (s *walker) contentKey(from, to record.ActorID, timer string, msg record.Message) uint64 {
	h := hashing.String(hashing.Seed, string(from))
	h = hashing.String(h, string(to))
	h = hashing.String(h, timer)
	return hashing.Finish(hashing.Mix(h, s.fp.Of(msg).Full))
}

// histKey is f's history key with actor a's history replaced by h.
func (s *walker) histKey(f *frame, a int, h uint64) uint64 {
	k := finish(uint64(f.ext)*2+b2u(f.kept)) ^ f.dec
	for i, x := range f.hist {
		if i == a {
			x = h
		}
		k += actorTerm(i, x)
	}
	return k
}

// globalKey hashes f's global state: every member's state, the cut links,
// the pending messages per link in send order, and the next external
// event.
func (s *walker) globalKey(f *frame) uint64 {
	k, _ := s.pendingHash(f.sim)
	return s.actorsKey(f) + k
}

// actorsKey is the global key without the pending messages: every
// member's state, the cut links and the next external event.
func (s *walker) actorsKey(f *frame) uint64 {
	s.hashes(f)
	k := finish(uint64(f.ext)*4+b2u(f.kept)+2*b2u(f.inserted)+0x3c6ef372fe94f82b) + f.cut
	for i, h := range f.ah {
		k += actorTerm(i, h)
	}
	if s.cfg.plain {
		// An actor may have stamped its state with the event clock:
		// the states it reaches depend on how many events came before.
		k += finish(uint64(f.sim.NumEvents()) + 0x2545f4914f6cdd1d)
	}
	return k
}

// pendingHash combines the pending messages, each by its content key and
// its place in its link's queue (a timer is a link of its own); ext counts
// those sent by external events.
func (s *walker) pendingHash(sim *record.Sim) (k uint64, ext int) {
	clear(s.cnt)
	n := len(s.members) + 1
	for _, p := range sim.InFlight() {
		if p.From == record.External {
			ext++
		}
		pos := int32(0)
		if p.Timer == "" {
			l := s.slot(p.From)*n + s.slot(p.To)
			pos = s.cnt[l]
			s.cnt[l]++
		}
		k += finish(hashing.Mix(s.ckey[p.ID], uint64(pos)))
	}
	return k, ext
}

// slot is the position of an actor among the members, len(members) for
// External.
func (s *search) slot(id record.ActorID) int {
	if i, ok := s.index[id]; ok {
		return i
	}
	return len(s.members)
}

// actorHash hashes member i's state: whether it runs, its value, its
// storage, its incarnation and its random source.
func (s *walker) actorHash(sim *record.Sim, i int) uint64 {
	st := sim.View().StateOf(s.members[i])
	h := finish(uint64(i) + 0x51)
	if st.Running {
		h = mix(h, 1, 0)
		h = mix(h, s.fp.Of(st.Actor).Full, 1)
	}
	h = mix(h, s.fp.Of(st.Storage).Full, 2)
	h = mix(h, uint64(st.Incarnation), 3)
	if st.Rand != nil {
		h = mix(h, s.fp.Of(st.Rand).Full, 4)
	}
	return h
}

// cutHash hashes the cut links.
func (s *search) cutHash(sim *record.Sim) uint64 {
	v := sim.View()
	var k uint64
	for i, a := range s.members {
		for j, b := range s.members {
			if v.Partitioned(a, b) {
				k += finish(uint64(i*len(s.members)+j) + 0x77)
			}
		}
	}
	return k
}

// mix extends a hash with one event (its key and the number of external
// events before it).
func mix(h, key, ext uint64) uint64 {
	return hashing.Finish(hashing.Mix(hashing.Mix(h, key), ext))
}

// actorTerm is actor a's contribution to a key.
func actorTerm(a int, h uint64) uint64 { return hashing.Finish(hashing.Mix(h, uint64(a)+1)) }

// finish scrambles x.
func finish(x uint64) uint64 { return hashing.Finish(hashing.Mix(hashing.Seed, x)) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
