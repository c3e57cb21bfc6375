package etcdraft

import (
	"context"
	"fmt"
	"maps"

	"github.com/demi-project/demi/record"
)

// Reference builds the hand-written reproducer of bug: a schedule written
// out event by event (externals applied, chosen pending messages
// delivered) through the runtime, ending in the same violation as the
// bug's shipped fuzz trace. No minimizer produced them: they are the
// yardsticks minimization is measured against. docs/examples.md tells each
// one's story.
func Reference(ctx context.Context, bug string) (*record.Trace, error) {
	build, ok := references()[bug]
	if !ok {
		return nil, fmt.Errorf("etcdraft: no reference reproducer for %q", bug)
	}
	opts := record.Options{bug: "true"}
	for _, c := range ShippedFuzz() {
		if c.Bug == bug {
			maps.Copy(opts, c.Opts)
		}
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
	t.Header.Note = "hand-built reference reproducer (examples/etcdraft/reference.go)"
	return t, nil
}

// builder applies a schedule step by step and remembers the first error.
// Every step but the last must leave the invariant intact.
type builder struct {
	ctx  context.Context
	sim  *record.Sim
	err  error
	step int
	buf  []record.Pending
}

func m(i int) record.ActorID { return memberID(uint64(i)) }

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
	if b.before() {
		if err := b.sim.Apply(e); err != nil {
			b.fail("%v", err)
		}
	}
}

func (b *builder) start(ids ...int) {
	for _, i := range ids {
		b.apply(record.StartEvent(m(i)))
	}
}

func (b *builder) restart(i int) { b.apply(record.RestartEvent(m(i))) }

// put sends member i a client request and delivers it.
func (b *builder) put(i int, key, value string) {
	b.apply(record.SendEvent(m(i), Put{Key: key, Value: value}))
	b.deliver(0, i, is[Put])
}

// get sends member i a client read and delivers it.
func (b *builder) get(i int, key string) {
	b.apply(record.SendEvent(m(i), Get{Key: key}))
	b.deliver(0, i, is[Get])
}

// fire fires member i's timer key.
func (b *builder) fire(i int, key string) {
	if !b.before() {
		return
	}
	b.buf = b.sim.Enabled(b.buf[:0])
	for _, p := range b.buf {
		if p.To == m(i) && p.Timer == key {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	b.fail("no %s timer pending at %s", key, m(i))
}

// deliver delivers the first deliverable message from → to (0 is the
// outside) that match accepts.
func (b *builder) deliver(from, to int, match func(record.Message) bool) {
	if !b.before() {
		return
	}
	src := record.External
	if from > 0 {
		src = m(from)
	}
	b.buf = b.sim.Enabled(b.buf[:0])
	for _, p := range b.buf {
		if p.Timer == "" && p.From == src && p.To == m(to) && match(p.Msg) {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	var pending []string
	for _, p := range b.sim.Enabled(nil) {
		pending = append(pending, fmt.Sprintf("%s→%s %s", p.From, p.To, record.FormatMessage(p.Msg)))
	}
	b.fail("no matching message deliverable %s→%s (deliverable: %v)", src, m(to), pending)
}

// is matches messages of type T.
func is[T any](msg record.Message) bool { _, ok := msg.(T); return ok }

// elect makes member c leader with the votes of voters: its campaign timer
// fires, each voter gets the Vote and c gets the answers.
func (b *builder) elect(c int, voters ...int) {
	b.fire(c, timerCampaign)
	for _, v := range voters {
		b.deliver(c, v, is[Vote])
	}
	for _, v := range voters {
		b.deliver(v, c, is[VoteResp])
	}
}

func references() map[string]func(*builder) {
	return map[string]func(*builder){
		// etcd-2 votes for etcd-1 in term 2 and sends its vote before
		// writing it; it crashes, and comes back in term 1 with no vote.
		// etcd-1 leads term 2 on that vote; etcd-2 campaigns, which takes
		// it to term 2 again, and leads it with etcd-3's vote: etcd-2 has
		// voted twice in term 2, and term 2 has two leaders.
		BugSendBeforePersist: func(b *builder) {
			b.start(1, 2, 3)
			b.fire(1, timerCampaign)
			b.deliver(1, 2, is[Vote]) // etcd-2 votes, writes nothing yet
			b.restart(2)              // and forgets its vote (its answer is on its way)
			b.deliver(2, 1, is[VoteResp])
			b.elect(2, 3)
		},
		// etcd-1 leads term 2 and applies its first entry on appending it,
		// uncommitted; etcd-3 wins term 3 with etcd-2's vote (neither has
		// that entry) and applies its own first entry at the same index.
		BugApplyBeforeCommit: func(b *builder) {
			b.start(1, 2, 3)
			b.elect(1, 2)             // etcd-1 applies its term-2 entry at index 2
			b.deliver(1, 3, is[Vote]) // etcd-3 learns term 2
			b.elect(3, 2)             // etcd-3 leads term 3, applies its entry at index 2
		},
		// The leader compacts its log after its first applied write
		// (snapshot-every=1); the lagging etcd-3 gets the snapshot, applies
		// it without writing it, writes the HardState whose commit index is
		// the snapshot's, and crashes: on restart its commit index is
		// beyond its log, and the library panics.
		BugSkipSnapshotPersist: func(b *builder) {
			b.start(1, 2, 3)
			b.elect(1, 2, 3)
			b.put(1, "k", "v")       // index 3
			b.deliver(1, 2, is[App]) // index 2
			b.deliver(2, 1, is[AppResp])
			b.deliver(1, 2, is[App])     // index 3
			b.deliver(2, 1, is[AppResp]) // the write is applied: snapshot at 3, log compacted
			b.deliver(1, 3, is[App])     // the probe of index 2, sent at the election
			b.deliver(3, 1, is[AppResp])
			b.deliver(1, 3, is[Snap]) // applied, not written; commit 3 is written
			b.restart(3)
		},
		// etcd-1 is elected with etcd-2's vote and commits its first entry
		// with etcd-2; etcd-3, which has heard nothing yet, restarts (which
		// drops what etcd-1 had queued for it). The leader's next heartbeat
		// gets an answer from etcd-3, and the append that follows is
		// etcd-3's first: it carries the entry and a commit index that
		// covers it. etcd-3 writes the HardState, crashes before the entry
		// is written, and on restart its commit index is beyond its log:
		// the library panics. (A member sends its messages only once its
		// deferred entries are written, on its next handler: the first tick
		// and heartbeat get etcd-1's and etcd-2's messages out.)
		BugHardStateFirst: func(b *builder) {
			b.start(1, 2, 3)
			b.elect(1, 2)
			b.fire(1, timerTick) // etcd-1 has written its entry: the append goes out
			b.deliver(1, 2, is[App])
			b.deliver(1, 2, is[Heartbeat]) // etcd-2 has written the entry: its answer goes out
			b.deliver(2, 1, is[AppResp])   // index 2 committed
			b.restart(3)                   // etcd-1's vote request and first append to etcd-3 are dropped
			b.fire(1, timerTick)
			b.deliver(1, 3, is[Heartbeat])
			b.deliver(3, 1, is[HeartbeatResp]) // the leader probes etcd-3 from index 2
			b.deliver(1, 3, is[App])           // entry 2, commit 2: the HardState is written, the entry not yet
			b.restart(3)
		},
		// etcd-3 leads term 2 with etcd-1's vote; etcd-1 then leads term 3
		// with etcd-2's, and commits a client write with etcd-2. etcd-3,
		// which heard nothing of term 3, still believes it leads and
		// answers a read from its own store: the key has no value there,
		// although the write had completed before the read began.
		BugLeaderLocalRead: func(b *builder) {
			b.start(1, 2, 3)
			b.elect(3, 1)
			b.elect(1, 2)
			b.put(1, "k", "v")           // index 3, after the new leader's entry at index 2
			b.deliver(1, 2, is[App])     // index 2
			b.deliver(2, 1, is[AppResp]) // index 2 committed
			b.deliver(1, 2, is[App])     // index 3
			b.deliver(2, 1, is[AppResp]) // index 3 committed and applied: the write completes
			b.get(3, "k")
		},
	}
}
