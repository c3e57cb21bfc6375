package etcdraft

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
)

// Reference builds the hand-written reproducer of the stale read index bug
// (etcd-io/raft#397): a schedule written out event by event through the
// runtime, ending in the Linearizability violation. No minimizer produced
// it: it is the yardstick the minimized trace is measured against.
//
// etcd-1 leads term 2. etcd-2 asks it for a read index (request context A);
// etcd-1 confirms its leadership with a heartbeat round carrying A and
// answers, but etcd-2's read-retry timer fires before the answer arrives,
// and etcd-2 asks again with the same context A. etcd-3's answer to the
// heartbeat of A is still on its way to etcd-1. etcd-2 then wins term 3
// with etcd-3's vote and commits a client write of k. A client reads k at
// etcd-1, which has heard nothing of term 3: it queues the read (B) behind
// a new heartbeat round. etcd-2's second request for A arrives and is
// queued after B; then etcd-3's old answer to the first heartbeat of A
// arrives: v3.6.0 matches heartbeat answers to reads by the request
// context alone, counts it as a second acknowledgement of A (with its
// own, a quorum of three), and releases every read queued up to A, B
// included, at etcd-1's commit index of term 2. etcd-1 answers B without
// the write that had completed before B began.
func Reference(ctx context.Context) (*record.Trace, error) {
	sim, err := record.NewSim(System(), ReferenceOptions(), 0)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	b := &builder{ctx: ctx, sim: sim}
	staleReadIndex(b)
	if b.err != nil {
		return nil, fmt.Errorf("reference: %w", b.err)
	}
	v := sim.Check()
	if v == nil {
		return nil, fmt.Errorf("reference: the schedule ends without a violation")
	}
	t := sim.Trace(v)
	t.Header.Note = "hand-built reference reproducer (examples/realbugs/readindex/etcdraft/reference.go)"
	return t, nil
}

// ReferenceOptions are the options of the reference reproducer and of the
// fuzz search: reads on (as often as writes) and etcd's read retries.
func ReferenceOptions() record.Options {
	return record.Options{OptReadWeight: "10", OptReadRetry: "true"}
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

func staleReadIndex(b *builder) {
	b.start(1, 2, 3)
	b.elect(1, 2, 3)
	b.deliver(1, 2, is[App]) // etcd-1's entry of term 2 (index 2)
	b.deliver(2, 1, is[AppResp])
	b.deliver(1, 2, is[App]) // its commit index
	b.deliver(2, 1, is[AppResp])
	b.deliver(1, 3, is[App])
	b.get(2, "k")                  // read A at etcd-2: ReadIndex to the leader
	b.deliver(2, 1, is[ReadIndex]) // etcd-1 queues A, heartbeats with context A
	b.deliver(1, 2, is[Heartbeat])
	b.deliver(2, 1, is[HeartbeatResp]) // a quorum for A: released, answer on its way
	b.fire(2, timerRetry)              // etcd-2 asks again for A, same context
	b.deliver(1, 3, is[Heartbeat])     // etcd-3 answers the heartbeat of A: held up
	b.elect(2, 3)                      // etcd-2 leads term 3
	b.deliver(2, 3, is[App])           // its entry of term 3 (index 3)
	b.deliver(3, 2, is[AppResp])
	b.put(2, "k", "v")       // index 4
	b.deliver(2, 3, is[App]) // commit index 3
	b.deliver(2, 3, is[App]) // index 4
	b.deliver(3, 2, is[AppResp])
	b.deliver(3, 2, is[AppResp])       // index 4 committed and applied: the write completes
	b.get(1, "k")                      // read B at etcd-1, which still leads term 2
	b.deliver(2, 1, is[ReadIndex])     // etcd-2's second request for A, queued after B
	b.deliver(3, 1, is[AppResp])       // etcd-3's answer to index 2
	b.deliver(3, 1, is[HeartbeatResp]) // the old answer for A releases A and B
}
