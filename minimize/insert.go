package minimize

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
)

// The insert pass reaches routes that need events the best trace lacks (a
// second crash-restart that drops what was queued, and a round sent only
// because of it). It keeps a prefix of the best trace and replaces the
// rest by the cheapest suffix a bounded exhaustive search finds: every
// enabled delivery and insertable external event (insertable) at every
// step, depth first under a cost bound that deepens one at a time and
// stays below the replaced suffix's (at most maxInsertCost). Of two
// adjacent commuting steps one order is expanded; the last step is like
// the trace's last event and depends on the one before it; at most one
// external event is inserted. A state is a fork of the one before it
// (replayed from the start when actors cannot be copied), counted as a
// replay. Cuts run from the end back, each search capped at
// maxInsertSteps; the first smaller trace wins, and a descent follows.

// insert runs the insert pass once on the best trace.
func (m *minimizer) insert(ctx context.Context) error {
	base := m.snapshotBest()
	alphabet := insertable(m.dropped, base.Events)
	cuts := insertCuts(base.Events)
	_, tr, err := m.firstTrace(ctx, len(cuts), insertChunk, func(_ *dpor.Checker, i int) (*record.Trace, int64, error) {
		// What the pass may still use (the count grows per chunk), shared
		// by the cuts of a chunk, which run at once: each given all of
		// it, a chunk of cuts that find nothing ran up to insertChunk
		// times past the pass's end.
		limit := min(maxInsertSteps, (m.end()-m.steps.Load())/insertChunk)
		s := &suffixSearch{ctx: ctx, target: m.target, alphabet: alphabet, limit: limit, replays: m.cfg.fullChecks}
		return s.run(m.sys, base, cuts[i])
	})
	if err != nil || tr == nil {
		return err
	}
	m.offer(tr) // smaller already: an interrupted descent keeps it
	small, steps, err := m.descent(ctx, m.checks[0], tr, true)
	m.steps.Add(steps)
	if err != nil {
		return err
	}
	m.offer(small)
	return nil
}

// inserts reports whether the insert pass applies to the best trace: at
// most maxInsertDeliveries deliveries, and events to insert.
func (m *minimizer) inserts(context.Context) bool {
	t := m.snapshotBest()
	if t.Header.Deliveries > maxInsertDeliveries {
		return false
	}
	cuts := insertCuts(t.Events)
	late := len(cuts) > 0 && slices.ContainsFunc(t.Events[cuts[len(cuts)-1]:], func(e record.Event) bool { return e.Kind == record.Start })
	return late || len(insertable(m.dropped, t.Events)) > 0
}

// insertable lists the external events the search may insert: a copy of
// each send, kill and restart of events (one of each shape, reinsertable),
// then, when the input (dropped) restarts a member, a restart of every
// started one.
func insertable(dropped, events []record.Event) []record.Event {
	all := slices.Clone(events)
	if slices.ContainsFunc(dropped, func(e record.Event) bool { return e.Kind == record.Restart }) {
		for _, a := range startedActors(events) {
			all = append(all, record.Event{Kind: record.Restart, Actor: a})
		}
	}
	var out []record.Event
	for _, e := range reinsertable(all) {
		if e.Kind != record.Start {
			out = append(out, record.Event{Kind: e.Kind, Actor: e.Actor, To: e.To, Msg: e.Msg, Cause: -1})
		}
	}
	return out
}

// insertCuts lists the cuts, from the last event back to the first event
// after the leading starts.
func insertCuts(events []record.Event) []int {
	first := afterStarts(events)
	var out []int
	for p := len(events) - 1; p >= max(first, 1); p-- {
		out = append(out, p)
	}
	return out
}

// suffixSearch is the search at one cut.
type suffixSearch struct {
	ctx      context.Context
	setup    record.Setup
	target   string
	alphabet []record.Event
	index    map[record.ActorID]int
	limit    int64 // the step cap
	steps    int64
	found    *record.Trace
	// replays: every state is replayed from the start, not forked (the
	// system's actors cannot be copied).
	replays bool
	// final is the best trace's last event: a suffix's last step is like
	// it (endsLike, sameExternal).
	final record.Event
}

// errInsertCap ends a search whose step cap is used up.
var errInsertCap = errors.New("the search reached its step cap")

// run searches the suffixes of base after cut, deepening the cost bound,
// and returns the first trace found, or nil, and the steps it ran.
func (s *suffixSearch) run(sys *record.System, base *record.Trace, cut int) (*record.Trace, int64, error) {
	alphabet := s.alphabet
	tr, steps, err := s.search(sys, base, cut)
	if errors.Is(err, errInsertFork) {
		*s = suffixSearch{ctx: s.ctx, target: s.target, alphabet: alphabet, limit: s.limit, replays: true}
		return s.search(sys, base, cut)
	}
	return tr, steps, err
}

// errInsertFork ends a search that forked a run whose actors cannot be
// copied: its states may have changed each other.
var errInsertFork = errors.New("a forked run shares an actor with another")

// search is run, forking states unless s.replays.
func (s *suffixSearch) search(sys *record.System, base *record.Trace, cut int) (*record.Trace, int64, error) {
	s.setup = base.Setup(sys)
	s.final = base.Events[len(base.Events)-1]
	// Room for the deepest suffix: the search appends its steps in place
	// (expand).
	path := slices.Grow(slices.Clone(base.Events[:cut]), maxInsertCost+1)
	// The members the trace starts after the cut may start at any step.
	started := map[record.ActorID]bool{}
	for _, e := range path {
		started[e.Actor] = started[e.Actor] || e.Kind == record.Start
	}
	s.alphabet = slices.Clip(s.alphabet)
	for _, e := range base.Events[cut:] {
		if e.Kind == record.Start && !started[e.Actor] {
			started[e.Actor] = true
			s.alphabet = append(s.alphabet, record.Event{Kind: record.Start, Actor: e.Actor, Cause: -1})
		}
	}
	root, err := s.replay(path)
	if errors.Is(err, errInsertCap) {
		return nil, s.steps, nil // no room left for even the prefix
	}
	if err != nil || root.Halted() != nil {
		return nil, s.steps, err
	}
	s.index = map[record.ActorID]int{}
	for i, a := range root.Members() {
		s.index[a] = i
	}
	bound := min(len(base.Events)-cut-1, maxInsertCost)
	for b := 1; b <= bound; b++ {
		err := s.expand(root, path, b, step{actor: -1}, false)
		if s.found != nil {
			return s.found, s.steps, nil
		}
		if errors.Is(err, errInsertCap) {
			return nil, s.steps, nil
		}
		if err != nil {
			return nil, s.steps, err
		}
	}
	return nil, s.steps, nil
}

// replay runs path from the start, exactly, and counts its steps.
func (s *suffixSearch) replay(path []record.Event) (*record.Sim, error) {
	if err := s.charge(path); err != nil {
		return nil, err
	}
	sim, err := s.setup.NewSim()
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	// Most states are dropped: their forks copy the compact log, and only
	// a found trace builds its Events.
	sim.CompactLog()
	for _, e := range path {
		if err := step1(sim, e); err != nil {
			return nil, err
		}
	}
	return sim, nil
}

// charge counts the steps of a run of path, or ends the search: ctx
// cancelled, or the step cap reached (errInsertCap).
func (s *suffixSearch) charge(path []record.Event) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if s.steps += int64(len(path)); s.steps > s.limit {
		return errInsertCap
	}
	return nil
}

// step1 runs event e of a path on sim.
func step1(sim *record.Sim, e record.Event) error {
	if err := sim.Step(e); err != nil {
		return fmt.Errorf("insert: replaying %s: %w", e, err)
	}
	return nil
}

// next returns the run of path: parent, the run of all of path but its
// last event, forked, and that event, or (s.replays) path replayed from
// the start. Either counts the steps of a replay.
func (s *suffixSearch) next(parent *record.Sim, path []record.Event) (*record.Sim, error) {
	if s.replays {
		return s.replay(path)
	}
	if err := s.charge(path); err != nil {
		return nil, err
	}
	c := parent.Fork()
	err := step1(c, path[len(path)-1])
	if c.ForkError() != nil {
		return nil, errInsertFork
	}
	return c, err
}

// step describes a step of the search for the commutation rule: its actor
// (member index; -1 for none), whether it is a delivery, the largest
// message ID pending before it, the members it sent to, and its index in
// the alphabet (-1 for a delivery).
type step struct {
	actor    int
	delivery bool
	before   record.MsgID
	sent     uint64 // bit i: it sent to member i
	ext      int
}

// dropsFor reports whether x is a kill or a restart.
func (s *suffixSearch) dropsFor(x step) bool {
	if x.delivery || x.ext < 0 {
		return false
	}
	k := s.alphabet[x.ext].Kind
	return k == record.Kill || k == record.Restart
}

// starts reports whether x is the start of a member.
func (s *suffixSearch) starts(x step) bool {
	return !x.delivery && x.ext >= 0 && s.alphabet[x.ext].Kind == record.Start
}

// commute reports whether steps a and b, both enabled, lead to the same
// state in either order: different actors, neither a start, neither a kill
// or restart that drops what the other sent to its actor.
func (s *suffixSearch) commute(a, b step) bool {
	if a.actor < 0 || b.actor < 0 || a.actor >= 64 || b.actor >= 64 { // sent is a 64-bit set
		return false
	}
	return a.actor != b.actor && !s.starts(a) && !s.starts(b) &&
		!(s.dropsFor(a) && b.sent&(1<<a.actor) != 0) && !(s.dropsFor(b) && a.sent&(1<<b.actor) != 0)
}

// expand tries every step from sim, the run of path, with left steps to
// go; last is the step that led to sim. A step is written after path in
// place: the search is depth first, so a step replaces its sibling tried
// before it, and path itself is never written. Of two adjacent commuting steps
// only the order with the lower-numbered actor first is expanded, except
// for the last step (which must end like the best trace).
func (s *suffixSearch) expand(sim *record.Sim, path []record.Event, left int, last step, inserted bool) error {
	top := maxPending(sim)
	n := len(path)
	for _, p := range sim.Enabled(nil) {
		if left == 1 && !s.endsLike(p) {
			continue
		}
		x := step{actor: s.index[p.To], delivery: true, before: top, ext: -1}
		if left == 1 && last.actor >= 0 && x.actor != last.actor && p.ID <= last.before {
			continue // the last step must depend on the one before it
		}
		if left > 1 && x.actor < last.actor && p.ID <= last.before && !s.dropsFor(last) && s.commute(last, x) {
			continue // the other order was (or will be) tried
		}
		d := record.Event{Kind: record.Deliver, ID: p.ID, From: p.From, To: p.To, Msg: p.Msg, Timer: p.Timer}
		if err := s.visit(sim, append(path[:n], d), left, last, x, inserted); err != nil || s.found != nil {
			return err
		}
	}
	for k, e := range s.alphabet {
		if k == last.ext || left == 1 && !sameExternal(e, s.final) || left > 1 && inserted {
			continue
		}
		a := e.Actor
		if e.Kind == record.Send {
			a = e.To
		}
		x := step{actor: s.index[a], before: top, ext: k}
		if left == 1 && last.actor >= 0 && s.commute(last, x) {
			continue // the last step must depend on the one before it
		}
		if left > 1 && x.actor < last.actor && !s.dropsFor(last) && s.commute(last, x) {
			continue
		}
		if err := s.visit(sim, append(path[:n], e), left, last, x, true); err != nil || s.found != nil {
			return err
		}
	}
	return nil
}

// visit runs path, whose last event is step x taken after step last
// from parent (the run of the rest of path), checks the violation and
// goes on while steps are left.
func (s *suffixSearch) visit(parent *record.Sim, path []record.Event, left int, last, x step, inserted bool) error {
	c, err := s.next(parent, path)
	if err != nil {
		return err
	}
	for _, p := range c.InFlight() {
		if p.ID > x.before && p.Timer == "" {
			x.sent |= 1 << s.index[p.To]
		}
	}
	if left > 1 && x.actor < last.actor && (!x.delivery || path[len(path)-1].ID <= last.before) && s.commute(last, x) {
		// What x sent shows that x and last commute: the other order
		// reaches this state.
		return nil
	}
	if v := c.Check(); v != nil {
		if v.Fingerprint == s.target {
			s.found = c.Trace(v)
			return nil
		}
		if c.Halted() != nil {
			return nil // another panic: the run cannot go on
		}
	}
	if left <= 1 {
		return nil
	}
	return s.expand(c, path, left-1, x, inserted)
}

// endsLike reports whether delivering p can be the last step of a suffix.
func (s *suffixSearch) endsLike(p record.Pending) bool {
	f := s.final
	return f.Kind == record.Deliver && p.To == f.To && p.Timer == f.Timer && record.TypeName(p.Msg) == record.TypeName(f.Msg)
}

// sameExternal reports whether x, an insertable external event, is a copy
// of e.
func sameExternal(x, e record.Event) bool {
	return x.Kind == e.Kind && shapeOf(x) == shapeOf(e) && (x.Msg == nil || record.SameMessage(x.Msg, e.Msg))
}

// maxPending returns the largest ID of a message pending in sim.
func maxPending(sim *record.Sim) record.MsgID {
	var top record.MsgID
	for _, p := range sim.InFlight() {
		top = max(top, p.ID)
	}
	return top
}
