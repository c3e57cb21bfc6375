package raft

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
)

// Reference builds the hand-written smallest known reproducer of bug: a
// schedule written out event by event (externals applied, chosen pending
// messages delivered) through the runtime, ending in the same violation as
// the bug's shipped fuzz trace. docs/examples.md tells each one's story.
// These are the yardsticks of minimization; no minimizer produced them.
func Reference(ctx context.Context, bug string) (*record.Trace, error) {
	return buildReference(ctx, bug, record.Options{bug: "true"})
}

// buildReference runs bug's reference schedule with the given options.
func buildReference(ctx context.Context, bug string, opts record.Options) (*record.Trace, error) {
	build, ok := references()[bug]
	if !ok {
		return nil, fmt.Errorf("raft: no reference reproducer for %q", bug)
	}
	sim, err := record.NewSim(System(), opts, 0)
	if err != nil {
		return nil, fmt.Errorf("reference %s: %w", bug, err)
	}
	b := &builder{ctx: ctx, sim: sim}
	build(b)
	if b.err != nil {
		return nil, fmt.Errorf("reference %s: %w", bug, b.err)
	}
	v := sim.Check()
	if v == nil {
		return nil, fmt.Errorf("reference %s: the schedule ends without a violation", bug)
	}
	t := sim.Trace(v)
	t.Header.Note = "hand-built reference reproducer (examples/raft/reference.go)"
	return t, nil
}

// builder applies a schedule step by step and remembers the first error.
// Every step but the last must leave the invariant intact, so the trace
// shows its violation only at its end.
type builder struct {
	ctx  context.Context
	sim  *record.Sim
	err  error
	step int
	buf  []record.Pending
}

func r(i int) record.ActorID {
	if i == 0 {
		return record.External
	}
	return record.ActorID(fmt.Sprintf("raft-%d", i))
}

func (b *builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("step %d: %s", b.step, fmt.Sprintf(format, args...))
	}
}

// before checks that the previous step left no violation.
func (b *builder) before() bool {
	if b.err != nil {
		return false
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return false
	}
	if b.step > 0 {
		if v := b.sim.Check(); v != nil {
			b.fail("violation before the schedule's end: %v", v)
			return false
		}
	}
	b.step++
	return true
}

func (b *builder) apply(e record.Event) {
	if !b.before() {
		return
	}
	if err := b.sim.Apply(e); err != nil {
		b.fail("%v", err)
	}
}

// start starts members.
func (b *builder) start(ids ...int) {
	for _, i := range ids {
		b.apply(record.StartEvent(r(i)))
	}
}

// bootstrap sends each member a Bootstrap listing all four members and
// delivers it.
func (b *builder) bootstrap(ids ...int) {
	for _, i := range ids {
		b.apply(record.SendEvent(r(i), Bootstrap{Members: []record.ActorID{r(1), r(2), r(3), r(4)}}))
	}
	for _, i := range ids {
		b.deliver(0, i, is[Bootstrap])
	}
}

// bootstrapOf sends each member of ids a Bootstrap listing members and
// delivers it.
func (b *builder) bootstrapOf(members []int, ids ...int) {
	list := make([]record.ActorID, len(members))
	for i, m := range members {
		list[i] = r(m)
	}
	for _, i := range ids {
		b.apply(record.SendEvent(r(i), Bootstrap{Members: list}))
	}
	for _, i := range ids {
		b.deliver(0, i, is[Bootstrap])
	}
}

// command sends a client command to member i and delivers it.
func (b *builder) command(i, cmd int) {
	b.apply(record.SendEvent(r(i), ClientCommand{Cmd: cmd}))
	b.deliver(0, i, is[ClientCommand])
}

// fire fires member i's timer key.
func (b *builder) fire(i int, key string) {
	if !b.before() {
		return
	}
	b.buf = b.sim.Enabled(b.buf[:0])
	for _, p := range b.buf {
		if p.To == r(i) && p.Timer == key {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	b.fail("no %s timer pending at %s", key, r(i))
}

// deliver delivers the first deliverable message from → to that match
// accepts.
func (b *builder) deliver(from, to int, match func(record.Message) bool) {
	if !b.before() {
		return
	}
	b.buf = b.sim.Enabled(b.buf[:0])
	for _, p := range b.buf {
		if p.Timer == "" && p.From == r(from) && p.To == r(to) && match(p.Msg) {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	var pending []string
	for _, p := range b.sim.InFlight() {
		if p.From == r(from) && p.To == r(to) {
			pending = append(pending, record.FormatMessage(p.Msg))
		}
	}
	b.fail("no matching message deliverable %s→%s (pending: %v)", r(from), r(to), pending)
}

// is matches messages of type T.
func is[T any](m record.Message) bool { _, ok := m.(T); return ok }

// appendWith matches an AppendEntries carrying n entries.
func appendWith(n int) func(record.Message) bool {
	return func(m record.Message) bool {
		ae, ok := m.(AppendEntries)
		return ok && len(ae.Entries) == n
	}
}

// elect runs an election won by member c: its election timer fires, then
// each voter gets the RequestVote and c gets the vote back.
func (b *builder) elect(c int, voters ...int) {
	b.fire(c, "election")
	for _, v := range voters {
		b.deliver(c, v, is[RequestVote])
	}
	for _, v := range voters {
		b.deliver(v, c, is[Vote])
	}
}

func references() map[string]func(*builder) {
	return map[string]func(*builder){
		// raft-1 and raft-2 both reach a majority in term 1 by counting
		// one follower's vote twice.
		Bug45: func(b *builder) {
			b.start(1, 2, 3, 4)
			b.bootstrap(1, 2, 3, 4)
			for _, p := range [][2]int{{1, 3}, {2, 4}} {
				c, v := p[0], p[1]
				b.fire(c, "election")            // c: candidate in term 1
				b.deliver(c, v, is[RequestVote]) // v votes for c
				b.fire(c, "retry")               // c asks v again before the vote arrives
				b.deliver(c, v, is[RequestVote]) // v votes for c again
				b.deliver(v, c, is[Vote])
				b.deliver(v, c, is[Vote]) // counted twice: c is leader
			}
		},
		// raft-2 wins term 2 with two votes cast for it in term 1;
		// raft-3 wins term 2 with the same voters' term-2 votes.
		Bug46: func(b *builder) {
			b.start(1, 2, 3, 4)
			b.bootstrap(1, 2, 3, 4)
			b.fire(2, "election") // raft-2: term 1
			b.deliver(2, 1, is[RequestVote])
			b.deliver(2, 4, is[RequestVote])
			b.fire(2, "election") // raft-2: term 2, term-1 votes in flight
			b.deliver(1, 2, is[Vote])
			b.deliver(4, 2, is[Vote]) // stale votes counted: leader of term 2
			b.deliver(2, 3, is[RequestVote])
			b.elect(3, 1, 4) // raft-3: term 2, votes of raft-1 and raft-4
		},
		// raft-1 and raft-4 are candidates in term 1; each steps down on
		// raft-2's term-2 RequestVote, votes for it and forgets that vote,
		// so both vote for raft-3 in term 2 too.
		Bug56: func(b *builder) {
			b.start(1, 2, 3, 4)
			b.bootstrap(1, 2, 3, 4)
			b.fire(1, "election")            // raft-1: candidate in term 1
			b.fire(4, "election")            // raft-4: candidate in term 1
			b.deliver(1, 2, is[RequestVote]) // raft-2 learns term 1
			b.deliver(2, 1, is[Vote])
			b.fire(2, "election")            // raft-2: candidate in term 2
			b.deliver(4, 3, is[RequestVote]) // raft-3 learns term 1
			b.deliver(3, 4, is[Vote])
			b.fire(3, "election")            // raft-3: candidate in term 2
			b.deliver(2, 1, is[RequestVote]) // raft-1 votes for raft-2, forgets it
			b.deliver(2, 4, is[RequestVote]) // raft-4 votes for raft-2, forgets it
			b.deliver(3, 1, is[RequestVote]) // raft-1 votes for raft-3
			b.deliver(3, 4, is[RequestVote]) // raft-4 votes for raft-3
			b.deliver(1, 2, is[Vote])
			b.deliver(4, 2, is[RequestVote])
			b.deliver(4, 2, is[Vote]) // raft-2: leader of term 2
			b.deliver(1, 3, is[RequestVote])
			b.deliver(1, 3, is[Vote])
			b.deliver(4, 3, is[Vote]) // raft-3: leader of term 2
		},
		// raft-2 leads term 1 and appends three commands nobody stores,
		// its nextIndex optimistically at 4; raft-1 leads term 2 and cuts
		// raft-2's log back to one entry; raft-2 leads term 3 and handles a
		// command before its InitLeader message, with nextIndex still 4.
		Bug58a: func(b *builder) {
			b.start(1, 2, 3)
			b.bootstrap(1, 2, 3)
			b.elect(2, 1, 3)                // raft-2: leader of term 1
			b.apply(record.KillEvent(r(3))) // its AppendEntries to raft-3 are lost
			b.command(2, 101)
			b.command(2, 102)
			b.command(2, 103)
			b.start(3, 4)
			b.bootstrap(4)
			b.elect(1, 3, 4) // raft-1: leader of term 2
			b.command(1, 201)
			b.deliver(1, 2, is[RequestVote]) // raft-2 steps down
			b.deliver(1, 2, appendWith(1))   // raft-2's log is cut to [201]
			b.elect(2, 3, 4)                 // raft-2: leader of term 3
			b.command(2, 301)                // before InitLeader: assertion fails
		},
		// A three-member cluster; raft-3 starts late. raft-1 leads term
		// 1 and takes command x while raft-3 is down, so its appends to
		// raft-3 are lost; then it takes y, and its append of y
		// (prevLogIndex 1, the ambiguous index) lands on raft-3's empty
		// log: raft-3 [1:y] vs raft-1 [1:x 1:y], two different entries of
		// term 1 at index 1.
		Bug58b: func(b *builder) {
			b.start(1, 2)
			b.bootstrapOf([]int{1, 2, 3}, 1, 2)
			b.elect(1, 2) // raft-1: leader of term 1
			b.command(1, 101)
			b.start(3)
			b.bootstrapOf([]int{1, 2, 3}, 3)
			b.command(1, 102)
			b.deliver(1, 3, appendWith(1)) // raft-3: [102] at index 1
		},
		// raft-1 leads term 1 with three entries; raft-3 stores two and
		// raft-2 one, so the matchIndex values 3,1,2,0 are all different
		// and their "mode" is 3: raft-1 commits an entry only it holds.
		// raft-3 then wins term 2 without it.
		Bug42: func(b *builder) {
			b.start(1, 2, 3)
			b.bootstrap(1, 2, 3)
			b.elect(1, 2, 3) // raft-1: leader of term 1
			b.command(1, 101)
			b.command(1, 102)
			b.command(1, 103)
			b.deliver(1, 3, appendWith(0))
			b.deliver(1, 3, appendWith(1))
			b.deliver(1, 3, appendWith(1)) // raft-3: [101 102]
			b.deliver(1, 2, appendWith(0))
			b.deliver(1, 2, appendWith(1)) // raft-2: [101]
			for i := 0; i < 3; i++ {
				b.deliver(3, 1, is[AppendEntriesResponse])
			}
			b.deliver(2, 1, is[AppendEntriesResponse])
			b.deliver(2, 1, is[AppendEntriesResponse]) // raft-1 commits index 3
			b.start(4)
			b.bootstrap(4)
			b.elect(3, 2, 4) // raft-3: leader of term 2 without 103
		},
		// raft-1 leads term 1; raft-2 and raft-3 store its command and
		// acknowledge it, so it is committed; then raft-1's first, empty
		// AppendEntries arrives late at both and truncates their logs.
		// raft-2 then wins term 2 with an empty log.
		Bug66: func(b *builder) {
			b.start(1, 2, 3)
			b.bootstrap(1, 2, 3)
			b.elect(1, 2, 3) // raft-1: leader of term 1
			b.command(1, 101)
			b.deliver(1, 2, appendWith(1))
			b.deliver(1, 3, appendWith(1))
			b.deliver(2, 1, is[AppendEntriesResponse])
			b.deliver(3, 1, is[AppendEntriesResponse]) // committed
			b.deliver(1, 2, appendWith(0))             // late heartbeat: raft-2's log is cut
			b.deliver(1, 3, appendWith(0))             // and raft-3's
			b.start(4)
			b.bootstrap(4)
			b.elect(2, 3, 4) // raft-2: leader of term 2 without 101
		},
	}
}
