package optimal

import (
	"context"
	"fmt"
	"time"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The global-state search (Config.Global) identifies a state by a hash of
// what the run is, not of how it got there: every actor's state (its value,
// walked field by field by reflection as message fingerprints are, its
// stable storage, its incarnation and its random source), whether it is
// running, the cut links, the pending messages (per link, in send order)
// and the next external event. Schedules that reach the same global state
// by different deliveries (a vote that changes nothing, two orders of
// messages that end in the same place) are expanded once. It keeps the
// history hash of the commutation reduction as a first, cheaper filter: a
// successor whose history was seen is not even replayed.
//
// With Config.Subsets the search also chooses which external events happen:
// each one, in order, is applied or left out, and applying one costs as
// much as a delivery, so the first violation found has the fewest
// deliveries plus external events over every subsequence of the input's
// external events and every schedule of them: the optimum of the bug for
// those events, not only of their schedule.
//
// The hash of an actor's value is only as good as its fields: an actor
// whose behaviour depends on something reflection cannot see (a function
// value, a channel, state outside the actor) must not use it.

// gstep is a step of the global search: an index among the enabled
// messages, or one of these.
const (
	stepApply int16 = -1 // apply the next external event
	stepSkip  int16 = -2 // leave the next external event out (Subsets)
)

type gnode struct {
	parent int32
	step   int16
	hist   uint64 // history key (the commutation reduction), for dedup before replay
}

type gsearch struct {
	*searcher
	cfg   Config
	fp    *fingerprint.Fingerprinter
	gn    []gnode
	gseen map[uint64]struct{} // global state keys expanded
	hseen map[uint64]struct{} // history keys generated
	// Expansions counts the replays (one per node taken from a layer,
	// including those found to be a state already expanded).
	replays int
}

func (s *searcher) runGlobal(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Subsets && len(s.externals) > 64 {
		return nil, fmt.Errorf("optimal: --subsets handles at most 64 external events, the trace has %d", len(s.externals))
	}
	g := &gsearch{searcher: s, cfg: cfg, fp: fingerprint.New(nil),
		gseen: map[uint64]struct{}{}, hseen: map[uint64]struct{}{}}
	res := &Result{Searched: -1}
	g.gn = []gnode{{parent: -1}}
	layer := []int32{0}
	// bound is the largest cost searched: deliveries, plus externals with
	// Subsets.
	bound := cfg.MaxDeliveries
	if cfg.Subsets {
		bound += len(s.externals)
		if cfg.TotalBound > 0 {
			bound = cfg.TotalBound
		}
	}
	for d := 0; d <= bound && len(layer) > 0; d++ {
		var next []int32
		for i := 0; i < len(layer); i++ {
			if len(g.gseen) >= cfg.MaxStates {
				return g.finishGlobal(res, nil, false)
			}
			if g.replays%64 == 0 {
				if err := ctx.Err(); err != nil {
					return g.finishGlobal(res, nil, false)
				}
			}
			found, same, nxt, err := g.expand(ctx, layer[i], d < bound)
			if err != nil {
				if ctx.Err() != nil { // cancelled mid-replay: what was searched stands
					return g.finishGlobal(res, nil, false)
				}
				return nil, err
			}
			if found {
				tr, err := g.buildGlobal(ctx, layer[i])
				if err != nil {
					return nil, err
				}
				res.Searched = d - 1
				return g.finishGlobal(res, tr, true)
			}
			layer = append(layer, same...)
			next = append(next, nxt...)
		}
		res.Searched = d
		res.States = len(g.gseen)
		if cfg.Progress != nil {
			cfg.Progress(Progress{Deliveries: d, States: len(g.gseen), Elapsed: time.Since(s.start)})
		}
		layer = next
	}
	return g.finishGlobal(res, nil, true)
}

func (g *gsearch) finishGlobal(res *Result, tr *record.Trace, exhausted bool) (*Result, error) {
	res.States = len(g.gseen)
	res.Replays = g.replays
	return g.finish(res, tr, exhausted)
}

// path sets g.path to node id's steps, last step first.
func (g *gsearch) pathOf(id int32) {
	g.path = g.path[:0]
	for n := id; n > 0; n = g.gn[n].parent {
		g.path = append(g.path, g.gn[n].step)
	}
}

// replay runs node id's schedule on a fresh run, taking each decision of
// the path (apply the next external event, leave it out, deliver the k-th
// enabled message) through a record.Driver with an empty schedule; it
// returns the run, the number of external events considered, the per-actor
// histories and the mask of the external events left out. The invariant is
// not checked on the way: the caller checks the state reached.
func (g *gsearch) replay(ctx context.Context, id int32, index map[record.ActorID]int) (*record.Sim, int, []uint64, uint64, error) {
	g.pathOf(id)
	d, err := record.NewDriver(g.setup, nil, record.Follow{CheckEvery: record.CheckAtEnd})
	if err != nil {
		return nil, 0, nil, 0, fmt.Errorf("optimal: %w", err)
	}
	sim := d.Sim()
	if index != nil {
		for i, m := range sim.Members() {
			index[m] = i
		}
	}
	hist := make([]uint64, len(sim.Members()))
	ext := 0
	var skipped uint64
	for i := len(g.path) - 1; i >= 0; i-- {
		switch st := g.path[i]; {
		case st == stepApply:
			e := g.externals[ext]
			if _, err := d.Apply(ctx, e); err != nil {
				return nil, 0, nil, 0, fmt.Errorf("optimal: external event %d (%s): %w", ext, e, err)
			}
			g.externalHistory(ext, hist, index)
			ext++
		case st == stepSkip:
			skipped |= 1 << uint(ext)
			ext++
		default:
			g.buf = sim.Enabled(g.buf[:0])
			p := &g.buf[st]
			if index != nil {
				ck, err := contentKey(p)
				if err != nil {
					return nil, 0, nil, 0, err
				}
				hist[index[p.To]] = mix(hist[index[p.To]], ck, uint64(ext))
			}
			if _, err := d.Deliver(ctx, p.ID); err != nil {
				return nil, 0, nil, 0, fmt.Errorf("optimal: replaying a schedule: %w", err)
			}
		}
	}
	return sim, ext, hist, skipped, nil
}

// expand replays node id, reports a violation, and otherwise returns its
// successors of the same cost and of the next cost, unless its global
// state was expanded already.
func (g *gsearch) expand(ctx context.Context, id int32, mayGrow bool) (found bool, same, next []int32, err error) {
	g.replays++
	index := map[record.ActorID]int{}
	sim, ext, hist, skipped, err := g.replay(ctx, id, index)
	if err != nil {
		return false, nil, nil, err
	}
	if v := sim.Check(); v != nil {
		if v.Same(g.want) {
			return true, nil, nil, nil
		}
		if sim.Halted() != nil {
			return false, nil, nil, nil
		}
	}
	key := g.globalKey(sim, ext)
	if _, dup := g.gseen[key]; dup {
		return false, nil, nil, nil
	}
	g.gseen[key] = struct{}{}
	base := stateKey(hist, ext) ^ finish(skipped+0x7f4a)
	add := func(step int16, hk uint64) int32 {
		if _, dup := g.hseen[hk]; dup {
			return -1
		}
		g.hseen[hk] = struct{}{}
		g.gn = append(g.gn, gnode{parent: id, step: step, hist: hk})
		return int32(len(g.gn) - 1)
	}
	if ext < len(g.externals) {
		h := append([]uint64(nil), hist...)
		g.externalHistory(ext, h, index)
		hk := stateKey(h, ext+1) ^ finish(skipped+0x7f4a) ^ 0x1a
		if g.cfg.Subsets {
			// Applying costs one; leaving it out costs nothing.
			if mayGrow {
				if n := add(stepApply, hk); n >= 0 {
					next = append(next, n)
				}
			}
			sk := stateKey(hist, ext+1) ^ finish(skipped|1<<uint(ext)+0x7f4a) ^ 0x2b
			if n := add(stepSkip, sk); n >= 0 {
				same = append(same, n)
			}
		} else if n := add(stepApply, hk); n >= 0 {
			same = append(same, n)
		}
	}
	if !mayGrow {
		return false, same, next, nil
	}
	g.buf = sim.Enabled(g.buf[:0])
	for i := range g.buf {
		if i > 1<<14 {
			break
		}
		p := &g.buf[i]
		ck, err := contentKey(p)
		if err != nil {
			return false, nil, nil, err
		}
		a := index[p.To]
		old := hist[a]
		nh := mix(old, ck, uint64(ext))
		k := base - actorTerm(a, old) + actorTerm(a, nh)
		if n := add(int16(i), k); n >= 0 {
			next = append(next, n)
		}
	}
	return false, same, next, nil
}

// globalKey hashes the run's global state: every member's state, the cut
// links, the pending messages per link in send order, and the number of
// external events considered.
func (g *gsearch) globalKey(sim *record.Sim, ext int) uint64 {
	v := sim.View()
	members := sim.Members()
	k := finish(uint64(ext) + 0x3c6ef372fe94f82b)
	for i, id := range members {
		h := finish(uint64(i) + 0x51)
		st := v.StateOf(id)
		if st.Running {
			h = mix(h, 1, 0)
			h = mix(h, g.fp.Of(st.Actor).Full, 1)
		}
		h = mix(h, g.fp.Of(st.Storage).Full, 2)
		h = mix(h, uint64(st.Incarnation), 3)
		if st.Rand != nil {
			h = mix(h, g.fp.Of(st.Rand).Full, 4)
		}
		for j, other := range members {
			if v.Partitioned(id, other) {
				h = mix(h, uint64(j)+0x77, 5)
			}
		}
		k += finish(h)
	}
	// Pending messages: each link's messages in send order, links combined
	// order-independently.
	links := map[[3]string]uint64{}
	for _, p := range sim.InFlight() {
		l := [3]string{string(p.From), string(p.To), p.Timer}
		h, ok := links[l]
		if !ok {
			h = mixString(0x9e37, string(p.From)+"\x00"+string(p.To)+"\x00"+p.Timer)
		}
		links[l] = mix(h, g.fp.Of(p.Msg).Full, 7)
	}
	for _, h := range links {
		k += finish(h ^ 0xa5a5)
	}
	return k
}

// finish scrambles x (internal/hashing's Finish after one round).
func finish(x uint64) uint64 { return hashing.Finish(hashing.Mix(hashing.Seed, x)) }

func mixString(h uint64, s string) uint64 { return hashing.Finish(hashing.String(h, s)) }

// buildGlobal replays node id's schedule into a trace and verifies it.
func (g *gsearch) buildGlobal(ctx context.Context, id int32) (*record.Trace, error) {
	sim, _, _, _, err := g.replay(ctx, id, nil)
	if err != nil {
		return nil, err
	}
	v := sim.Check()
	if v == nil || !v.Same(g.want) {
		return nil, fmt.Errorf("optimal: internal error: the schedule found does not reproduce %s", g.want.Fingerprint)
	}
	events := append([]record.Event(nil), sim.Events()...)
	tr := sim.Trace(v)
	tr.Events = events
	tr.Header.Note = fmt.Sprintf("optimal: smallest schedule found by the global-state search (%d deliveries, %d externals)", sim.NumDeliveries(), sim.NumExternals())
	r, err := replay.Run(ctx, g.sys, tr)
	if err != nil {
		return nil, fmt.Errorf("optimal: verifying the result: %w", err)
	}
	if !r.Reproduced {
		return nil, fmt.Errorf("optimal: the result does not replay: %v", r.Divergence)
	}
	return tr, nil
}
