package optimal_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/demi-project/demi/optimal"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
)

// This file checks Search against an independent breadth-first search on a
// system that exists only here (not an example, so Search was never tuned
// on it): replicas of a register with no version numbers. A client's Set
// goes to one replica, which applies it and forwards an Update to the
// others; every replica applies what it receives in arrival order, so two
// replicas that applied the same number of values can end on different
// values ("diverged").
//
// The breadth-first search shares no code with package optimal: it
// replays every schedule from scratch on a fresh record.Sim, identifies a
// state by the printed actors, pending messages and the next external
// event, and expands states level by level, so the first level that holds
// a violating state is the optimum.

// Set is a client's write to one replica.
type Set struct{ V int }

// Update is a replica forwarding a value it applied.
type Update struct{ V int }

// replica is one register replica.
type replica struct {
	ID      record.ActorID
	Peers   []record.ActorID
	Value   int
	Applied int
}

func (r *replica) Start(*record.Context) {}

func (r *replica) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Set:
		r.Value, r.Applied = m.V, r.Applied+1
		for _, p := range r.Peers {
			ctx.Send(p, Update(m))
		}
	case Update:
		r.Value, r.Applied = m.V, r.Applied+1
	}
}

// registerSystem is the replicated register of n replicas under sem,
// violated when two replicas that applied the same number of values, at
// least need, hold different ones.
func registerSystem(n, need int, sem record.Semantics) *record.System {
	var ids []record.ActorID
	for i := 1; i <= n; i++ {
		ids = append(ids, record.ActorID(fmt.Sprintf("r%d", i)))
	}
	return &record.System{
		Name:    "register",
		Members: func(record.Options) []record.ActorID { return ids },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			var peers []record.ActorID
			for _, p := range ids {
				if p != id {
					peers = append(peers, p)
				}
			}
			return &replica{ID: id, Peers: peers}
		},
		Messages: []record.Message{Set{}, Update{}},
		Network:  func(record.Options) record.Semantics { return sem },
		Invariant: func(v record.View) *record.Violation {
			for i, a := range ids {
				ra, ok := v.Actor(a).(*replica)
				if !ok || ra.Applied < need {
					continue
				}
				for _, b := range ids[i+1:] {
					rb, ok := v.Actor(b).(*replica)
					if ok && rb.Applied == ra.Applied && rb.Value != ra.Value {
						return &record.Violation{Fingerprint: "diverged", Detail: fmt.Sprintf("%s and %s", a, b)}
					}
				}
			}
			return nil
		},
	}
}

// registerTrace is a failing run with more than it needs: every replica
// started, four client writes, and deliveries in a random order (the
// first seed from 1 whose run violates the invariant).
func registerTrace(t *testing.T, sys *record.System) *record.Trace {
	t.Helper()
	ids := sys.Members(nil)
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		sim, err := record.NewSim(sys, nil, 0)
		require.NoError(t, err)
		for _, id := range ids {
			require.NoError(t, sim.Apply(record.StartEvent(id)))
		}
		for i := range 4 {
			require.NoError(t, sim.Apply(record.SendEvent(ids[i%len(ids)], Set{V: i + 1})))
		}
		for {
			if v := sim.Check(); v != nil {
				return sim.Trace(v)
			}
			en := sim.Enabled(nil)
			if len(en) == 0 {
				break
			}
			require.NoError(t, sim.Deliver(en[r.IntN(len(en))].ID))
		}
	}
	t.Fatal("no violation in 100 seeds")
	return nil
}

// bfsOptimum is the independent search: the least cost of a schedule that
// ends in tr's violation, -1 when none costs at most maxCost. A delivery
// costs 1. With subsets the external events are any subsequence of the
// trace's, in order, each costing 1; without, all of them, in order,
// costing nothing (demi optimal's two modes). It is a 0-1 breadth-first
// search: states are popped in order of cost, each once.
func bfsOptimum(t *testing.T, sys *record.System, tr *record.Trace, subsets bool, maxCost int) int {
	return bfsOptimumInserting(t, sys, tr, subsets, maxCost, nil)
}

// bfsOptimumInserting is bfsOptimum with insert (with subsets): one event to
// apply at most once, at any step, for a cost of 1 (optimal.Config.Insert).
func bfsOptimumInserting(t *testing.T, sys *record.System, tr *record.Trace, subsets bool, maxCost int, insert *record.Event) int {
	t.Helper()
	exts := tr.Externals()
	want := tr.Header.Violation.Fingerprint
	type step struct {
		ext int          // index into exts, -1 for a delivery, -2 for insert
		id  record.MsgID // the delivery, when ext == -1
	}
	type node struct {
		path     []step
		next     int // the next external event that may still be applied
		cost     int
		inserted bool
	}
	replay := func(path []step) *record.Sim {
		sim, err := record.NewSim(sys, tr.Header.OptionMap(), tr.Header.Seed)
		require.NoError(t, err)
		for _, s := range path {
			switch {
			case s.ext >= 0:
				require.NoError(t, sim.Apply(exts[s.ext]))
			case s.ext == -2:
				require.NoError(t, sim.Apply(*insert))
			default:
				require.NoError(t, sim.Deliver(s.id))
			}
		}
		return sim
	}
	key := func(sim *record.Sim, next int, inserted bool) string {
		var b strings.Builder
		for _, id := range sim.Members() {
			fmt.Fprintf(&b, "%s=%+v;", id, sim.View().Actor(id))
		}
		for _, p := range sim.InFlight() {
			fmt.Fprintf(&b, "%s>%s:%T%+v;", p.From, p.To, p.Msg, p.Msg)
		}
		fmt.Fprintf(&b, "next=%d inserted=%v", next, inserted)
		return b.String()
	}
	extCost := 0
	if subsets {
		extCost = 1
	}
	seen := map[string]bool{}
	deque := []node{{}}
	for len(deque) > 0 {
		n := deque[0]
		deque = deque[1:]
		if n.cost > maxCost {
			return -1
		}
		sim := replay(n.path)
		if v := sim.Check(); v != nil {
			if v.Fingerprint == want {
				return n.cost
			}
			continue
		}
		k := key(sim, n.next, n.inserted)
		if seen[k] {
			continue
		}
		seen[k] = true
		grow := func(s step, next, cost int) {
			c := node{path: append(append([]step(nil), n.path...), s), next: next, cost: n.cost + cost, inserted: n.inserted || s.ext == -2}
			if cost == 0 {
				deque = append([]node{c}, deque...)
			} else {
				deque = append(deque, c)
			}
		}
		for _, p := range sim.Enabled(nil) {
			grow(step{ext: -1, id: p.ID}, n.next, 1)
		}
		last := len(exts)
		if !subsets {
			last = min(n.next+1, len(exts))
		}
		for j := n.next; j < last; j++ {
			grow(step{ext: j}, j+1, extCost)
		}
		if insert != nil && !n.inserted {
			grow(step{ext: -2}, n.next, 1)
		}
	}
	return -1
}

// TestSearchAgreesWithBreadthFirst compares Search, with and without
// Subsets, against the independent breadth-first search, under FIFO and
// unordered networks, with two and three replicas.
func TestSearchAgreesWithBreadthFirst(t *testing.T) {
	// The optima, argued by hand: two replicas must each apply need
	// values (need deliveries each; a replica applies a write once, so
	// that takes need writes, and two at least to differ), and both must
	// be started: 2 + need + 2·need with subsets; without them every
	// external event is applied anyway and only the 2·need deliveries
	// count. The inputs are larger (logged).
	for _, c := range []struct {
		n, need int
		sem     record.Semantics
		subsets bool
		want    int
	}{
		{2, 2, record.FIFO, true, 8},
		{2, 2, record.FIFO, false, 4},
		{3, 2, record.FIFO, true, 8},
		{3, 2, record.FIFO, false, 4},
		{3, 2, record.Unordered, true, 8},
		{3, 2, record.Unordered, false, 4},
		{3, 3, record.FIFO, true, 11},
		{3, 3, record.Unordered, false, 6},
	} {
		t.Run(fmt.Sprintf("%d replicas, need %d, %v, subsets %v", c.n, c.need, c.sem, c.subsets), func(t *testing.T) {
			sys := registerSystem(c.n, c.need, c.sem)
			tr := registerTrace(t, sys)
			bfs := bfsOptimum(t, sys, tr, c.subsets, tr.Header.Deliveries+tr.Header.Externals)
			t.Logf("input %d deliveries (E:%d), breadth-first optimum %d", tr.Header.Deliveries, tr.Header.Externals, bfs)
			require.Equal(t, c.want, bfs, "the breadth-first optimum")
			res, err := optimal.Search(context.Background(), sys, tr, optimal.Config{Subsets: c.subsets, MaxDeliveries: tr.Header.Deliveries})
			require.NoError(t, err)
			require.NotNil(t, res.Trace)
			require.Equal(t, bfs, foundCost(t, sys, res, c.subsets), "demi optimal agrees with breadth-first search")
		})
	}
}

// TestSearchFromInsertAgreesWithBreadthFirst compares SearchFrom with an
// inserted event (Config.Insert) against the independent breadth-first
// search: one actor's start is taken out of the trace and given to insert,
// so the search chooses where, if anywhere, it starts; a start drops what
// was sent to the actor before it, so the order of the start and the
// others' deliveries matters. In the register the late replica is not
// needed; in lateSystem's relay (prefix_test.go) the only reproducer starts
// b after a delivery that sends to it.
func TestSearchFromInsertAgreesWithBreadthFirst(t *testing.T) {
	t.Run("relay", func(t *testing.T) {
		sys, tr, lacking := lateCase(t)
		start := record.StartEvent("b")
		bfs := bfsOptimumInserting(t, sys, lacking, true, len(tr.Events), &start)
		require.Equal(t, len(tr.Events), bfs, "the breadth-first optimum: the trace's own schedule")
		res, err := optimal.SearchFrom(context.Background(), sys, lacking, 0, optimal.Config{Subsets: true, TotalBound: len(tr.Events), Insert: []record.Event{start}})
		require.NoError(t, err)
		require.Equal(t, bfs, foundCost(t, sys, res, true), "SearchFrom with Insert agrees with breadth-first search")
	})
	for _, c := range []struct {
		n, need int
		sem     record.Semantics
	}{
		{3, 2, record.FIFO},
		{3, 2, record.Unordered},
		{3, 3, record.FIFO},
	} {
		t.Run(fmt.Sprintf("%d replicas, need %d, %v", c.n, c.need, c.sem), func(t *testing.T) {
			sys := registerSystem(c.n, c.need, c.sem)
			tr := registerTrace(t, sys)
			late := sys.Members(nil)[c.n-1]
			at := slices.IndexFunc(tr.Events, func(e record.Event) bool { return e.Kind == record.Start && e.Actor == late })
			require.GreaterOrEqual(t, at, 0)
			lacking := *tr
			lacking.Events = slices.Delete(slices.Clone(tr.Events), at, at+1)
			lacking.Recount()
			start := record.StartEvent(late)
			most := tr.Header.Deliveries + tr.Header.Externals
			bfs := bfsOptimumInserting(t, sys, &lacking, true, most, &start)
			t.Logf("breadth-first optimum with %s's start to insert: %d", late, bfs)
			require.Positive(t, bfs)
			res, err := optimal.SearchFrom(context.Background(), sys, &lacking, 0, optimal.Config{Subsets: true, TotalBound: most, Insert: []record.Event{start}})
			require.NoError(t, err)
			require.Equal(t, bfs, foundCost(t, sys, res, true), "SearchFrom with Insert agrees with breadth-first search")
		})
	}
}
