// Package optimal finds, by exhaustive search, the smallest schedule that
// reproduces a trace's violation: the ground truth the minimizer's results
// are measured against (the "Optimal" column of the DEMi paper's Table 1).
//
// The search keeps the trace's external events and their relative order and
// only chooses how deliveries are interleaved among them. It is a
// breadth-first search by number of deliveries (external events cost
// nothing), so the first violating state found uses the fewest deliveries
// possible, and among those the fewest external events.
//
// Two reductions keep it tractable, both sound:
//
//   - Commutation (the partial-order reduction at the heart of DPOR):
//     deliveries to different actors commute. Two schedules that differ only
//     by the order of commuting deliveries reach the same state, so the
//     search identifies a state by what each actor has seen, in order: its
//     local history of deliveries (by message content, not by message ID,
//     since IDs depend on the interleaving) and the position of each delivery
//     relative to the external events, which are dependent on everything.
//     An actor's state, its random draws, its storage and the messages it
//     sent are a deterministic function of that history, so two prefixes
//     with equal histories are the same state and only one is expanded.
//   - A visited set of those states: each is expanded once, at the first
//     (smallest) number of deliveries that reaches it.
//
// The runtime cannot clone a running system, so each expansion replays its
// schedule from the start; the search therefore costs about states x depth
// event executions and suits reference traces of a few dozen deliveries.
package optimal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// Config bounds a search.
type Config struct {
	// MaxDeliveries is the largest number of deliveries a schedule may have
	// (required, at least 0).
	MaxDeliveries int
	// MaxStates bounds the distinct states known to the search, expanded
	// or still queued (default 5,000,000), so memory stays bounded; the
	// search reports Exhausted=false when it stops there.
	MaxStates int
	// Progress, when set, is called after each completed layer (number of
	// deliveries).
	Progress func(Progress)
	// Global identifies states by a hash of the global state rather than
	// by the actors' histories (global.go).
	Global bool
	// Subsets also chooses which external events happen (implies Global);
	// the cost is deliveries plus external events (global.go).
	Subsets bool
	// TotalBound, with Subsets, bounds the cost (deliveries plus external
	// events) instead of MaxDeliveries plus every external event.
	TotalBound int
}

// Progress reports a finished layer of the breadth-first search.
type Progress struct {
	Deliveries int           // the layer just finished
	States     int           // states expanded so far
	Elapsed    time.Duration // since the search started
}

// Result is the outcome of a search.
type Result struct {
	// Trace is the smallest reproducing schedule found (verified by exact
	// replay), or nil when there is none within MaxDeliveries.
	Trace *record.Trace
	// Deliveries and Externals are Trace's counts (0 when Trace is nil).
	Deliveries, Externals int
	// Exhausted reports that every schedule with at most the bound (or,
	// when Trace is set, with fewer deliveries than Trace) was covered, so
	// the answer is exact. False when the search stopped on MaxStates or
	// the context.
	Exhausted bool
	// Searched is the largest number of deliveries fully covered.
	Searched int
	// States is the number of distinct states expanded.
	States int
	// Expanded counts expansions of states (global search only): a state
	// is expanded again by each deeper bound of the iterative deepening.
	Expanded int
	// Steps counts the events executed (global search only): each
	// expansion runs one event per successor it does not filter out.
	Steps int
	// Seconds is the wall time of the search.
	Seconds float64
}

// node is one state of the search: how it was reached from its parent.
type node struct {
	parent int32
	// step is the index among the enabled messages (in send order) that
	// was delivered, or -1 for the next external event.
	step int16
}

// Search looks for the smallest schedule with t's external events (in
// order) that reproduces t's violation fingerprint.
func Search(ctx context.Context, sys *record.System, t *record.Trace, cfg Config) (*Result, error) {
	if t.Header.Violation == nil {
		return nil, errors.New("optimal: the trace records no violation")
	}
	if cfg.MaxDeliveries < 0 {
		return nil, fmt.Errorf("optimal: max deliveries %d is negative", cfg.MaxDeliveries)
	}
	if cfg.MaxStates <= 0 {
		cfg.MaxStates = 5_000_000
	}
	s := &searcher{sys: sys, setup: t.Setup(sys), want: t.Header.Violation, externals: t.Externals(), start: time.Now()}
	sim, err := s.setup.NewSim()
	if err != nil {
		return nil, fmt.Errorf("optimal: %w", err)
	}
	s.members = sim.Members()
	for i, e := range s.externals {
		if e.Kind == record.Send && e.Msg == nil {
			return nil, fmt.Errorf("optimal: external event %d sends a nil message", i)
		}
	}
	if cfg.Global || cfg.Subsets {
		return s.runGlobal(ctx, cfg)
	}
	return s.run(ctx, cfg)
}

type searcher struct {
	sys       *record.System
	setup     record.Setup
	members   []record.ActorID
	want      *record.Violation
	externals []record.Event
	start     time.Time

	nodes []node
	seen  map[uint64]struct{}
	buf   []record.Pending
	path  []int16        // a node's steps, first step first
	sched []record.Event // the schedule they make
}

func (s *searcher) run(ctx context.Context, cfg Config) (*Result, error) {
	res := &Result{Searched: -1}
	s.nodes = []node{{parent: -1}}
	s.seen = map[uint64]struct{}{}
	layer := []int32{0}
	for d := 0; d <= cfg.MaxDeliveries && len(layer) > 0; d++ {
		var next []int32
		// The layer grows while it is walked: external steps stay in it.
		for i := 0; i < len(layer); i++ {
			if len(s.seen) >= cfg.MaxStates {
				return s.finish(res, nil, false)
			}
			if res.States%256 == 0 {
				if err := ctx.Err(); err != nil {
					return s.finish(res, nil, false)
				}
			}
			res.States++
			st, err := s.expand(ctx, layer[i], d < cfg.MaxDeliveries)
			if err != nil && ctx.Err() != nil {
				return s.finish(res, nil, false)
			}
			if err != nil {
				return nil, err
			}
			if st.found {
				tr, err := s.build(ctx, layer[i])
				if err != nil {
					return nil, err
				}
				res.Searched = d - 1
				return s.finish(res, tr, true)
			}
			layer = append(layer, st.sameLayer...)
			next = append(next, st.nextLayer...)
		}
		res.Searched = d
		if cfg.Progress != nil {
			cfg.Progress(Progress{Deliveries: d, States: res.States, Elapsed: time.Since(s.start)})
		}
		layer = next
	}
	return s.finish(res, nil, true)
}

func (s *searcher) finish(res *Result, tr *record.Trace, exhausted bool) (*Result, error) {
	res.Trace, res.Exhausted = tr, exhausted
	if tr != nil {
		res.Deliveries, res.Externals = tr.Header.Deliveries, tr.Header.Externals
	}
	res.Seconds = time.Since(s.start).Seconds()
	return res, nil
}

type expansion struct {
	found                bool
	sameLayer, nextLayer []int32
}

// follow replays node id's schedule on a fresh run through a
// record.Driver: its steps as a schedule whose deliveries name an index
// among the enabled messages, the invariant checked after the last step.
// With hist set, it records every actor's local history in it. It returns
// the driver and the number of external events applied.
func (s *searcher) follow(ctx context.Context, id int32, hist []uint64, index map[record.ActorID]int) (*record.Driver, int, error) {
	s.path = s.path[:0]
	for n := id; n > 0; n = s.nodes[n].parent {
		s.path = append(s.path, s.nodes[n].step)
	}
	slices.Reverse(s.path)
	s.sched = s.sched[:0]
	ext := 0
	for _, st := range s.path {
		if st < 0 {
			s.sched = append(s.sched, s.externals[ext])
			ext++
		} else {
			s.sched = append(s.sched, record.Event{Kind: record.Deliver})
		}
	}
	ext = 0
	var failed error
	d, err := record.NewDriver(s.setup, s.sched, record.Follow{
		Want:       s.want,
		CheckEvery: record.CheckAtEnd,
		Loose: func(sim *record.Sim, k int, _ *record.Event) (record.MsgID, bool) {
			s.buf = sim.Enabled(s.buf[:0])
			return s.buf[s.path[k]].ID, true
		},
		Observe: func(_ *record.Sim, o *record.Outcome) bool {
			if o.Delivered.ID == 0 { // an external event
				if hist != nil {
					s.externalHistory(ext, hist, index)
				}
				ext++
				return true
			}
			if hist != nil {
				p := &o.Delivered
				ck, err := contentKey(p)
				if err != nil {
					failed = err
					return false
				}
				hist[index[p.To]] = mix(hist[index[p.To]], ck, uint64(ext))
			}
			return true
		},
	})
	if err != nil {
		return nil, 0, fmt.Errorf("optimal: %w", err)
	}
	if err := d.Run(ctx); err != nil {
		return nil, 0, err
	}
	if failed != nil {
		return nil, 0, failed
	}
	if div := d.Divergence(); div != nil {
		return nil, 0, fmt.Errorf("optimal: replaying a schedule: %s", div)
	}
	if len(s.sched) == 0 { // nothing to follow: check the initial state
		d.Check()
	}
	return d, ext, nil
}

// expand replays node id's schedule, checks the violation, and adds the
// unseen successor states.
func (s *searcher) expand(ctx context.Context, id int32, mayDeliver bool) (expansion, error) {
	var out expansion
	members := s.members
	index := make(map[record.ActorID]int, len(members))
	for i, m := range members {
		index[m] = i
	}
	hist := make([]uint64, len(members)) // per-actor local history hashes
	d, ext, err := s.follow(ctx, id, hist, index)
	if err != nil {
		return out, err
	}
	sim := d.Sim()
	if d.Found() {
		out.found = true
		return out, nil
	}
	if sim.Halted() != nil {
		return out, nil // another panic: the run cannot go on
	}
	base := stateKey(hist, ext)
	if ext < len(s.externals) {
		h := append([]uint64(nil), hist...)
		s.externalHistory(ext, h, index)
		if k := stateKey(h, ext+1); s.visit(k) {
			out.sameLayer = append(out.sameLayer, s.add(id, -1))
		}
	}
	if !mayDeliver {
		return out, nil
	}
	s.buf = sim.Enabled(s.buf[:0])
	var keys []uint64
	for i := range s.buf {
		if i > 1<<14 {
			break
		}
		p := &s.buf[i]
		ck, err := contentKey(p)
		if err != nil {
			return out, err
		}
		a := index[p.To]
		old := hist[a]
		nh := mix(old, ck, uint64(ext))
		k := base - actorTerm(a, old) + actorTerm(a, nh)
		dup := false
		for _, q := range keys {
			dup = dup || q == k
		}
		if dup {
			continue
		}
		keys = append(keys, k)
		if s.visit(k) {
			out.nextLayer = append(out.nextLayer, s.add(id, int16(i)))
		}
	}
	return out, nil
}

// externalHistory records external event ext in the histories of the
// actors it touches (start, kill and restart change their actor's state).
func (s *searcher) externalHistory(ext int, hist []uint64, index map[record.ActorID]int) {
	e := s.externals[ext]
	switch e.Kind {
	case record.Start, record.Kill, record.Restart:
		if a, ok := index[e.Actor]; ok {
			hist[a] = mix(hist[a], uint64(e.Kind)+0x9e37, uint64(ext))
		}
	}
}

func (s *searcher) visit(k uint64) bool {
	if _, ok := s.seen[k]; ok {
		return false
	}
	s.seen[k] = struct{}{}
	return true
}

func (s *searcher) add(parent int32, step int16) int32 {
	s.nodes = append(s.nodes, node{parent: parent, step: step})
	return int32(len(s.nodes) - 1)
}

// build replays node id's schedule into a trace and verifies it.
func (s *searcher) build(ctx context.Context, id int32) (*record.Trace, error) {
	d, _, err := s.follow(ctx, id, nil, nil)
	if err != nil {
		return nil, err
	}
	if !d.Found() {
		return nil, fmt.Errorf("optimal: internal error: the schedule found does not reproduce %s", s.want.Fingerprint)
	}
	sim := d.Sim()
	tr := sim.Trace(d.Violation())
	tr.Header.Note = fmt.Sprintf("optimal: smallest schedule with the external events of the input (%d deliveries)", sim.NumDeliveries())
	r, err := replay.Run(ctx, s.sys, tr)
	if err != nil {
		return nil, fmt.Errorf("optimal: verifying the result: %w", err)
	}
	if !r.Reproduced {
		return nil, fmt.Errorf("optimal: the result does not replay: %v", r.Divergence)
	}
	return tr, nil
}

// contentKey identifies a pending message by what it is, not by its ID:
// sender, receiver, timer key, type and canonical encoding.
func contentKey(p *record.Pending) (uint64, error) {
	b, err := record.EncodeMessage(p.Msg)
	if err != nil {
		return 0, fmt.Errorf("optimal: encode message %s: %w", record.TypeName(p.Msg), err)
	}
	h := hashing.String(hashing.Seed, string(p.From))
	h = hashing.String(h, string(p.To))
	h = hashing.String(h, p.Timer)
	h = hashing.String(h, record.TypeName(p.Msg))
	return hashing.Bytes(h, b), nil
}

// mix extends a history hash with one event (its key and the number of
// external events before it).
func mix(h, key, ext uint64) uint64 {
	return hashing.Finish(hashing.Mix(hashing.Mix(h, key), ext))
}

// actorTerm is actor a's contribution to a state key.
func actorTerm(a int, h uint64) uint64 { return hashing.Finish(hashing.Mix(h, uint64(a)+1)) }

// stateKey combines the per-actor histories and the number of external
// events applied; it is updated incrementally when one actor's history
// changes.
func stateKey(hist []uint64, ext int) uint64 {
	k := hashing.Finish(hashing.Mix(hashing.Seed, uint64(ext)))
	for a, h := range hist {
		k += actorTerm(a, h)
	}
	return k
}
