package etcdraft33

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
)

// Reference builds the hand-written reproducer of the PreVote and
// CheckQuorum liveness bug (etcd-io/etcd#8334): a schedule written out
// event by event through the runtime, ending in the Liveness(leader)
// violation. No minimizer produced it: it is the yardstick the minimized
// trace is measured against.
//
// etcd-1 wins term 2 with etcd-2's vote and its first App reaches both
// followers (etcd-3's after etcd-1's pre-vote and vote, in FIFO order), so
// both name etcd-1 as their leader. A partition cuts etcd-1
// off. etcd-2 and etcd-3, a majority, can talk, and their Campaign timers
// fire in turn: each becomes a pre-candidate and asks the other for a
// pre-vote. With CheckQuorum, a member that has a leader within its lease
// ignores pre-votes, and v3.3.13's pre-candidate keeps its old leader
// (becomePreCandidate does not clear r.lead), so each ignores the other
// for ever. After the liveness bound's deliveries with no leader, the run
// violates Liveness(leader). v3.3.15 clears the leader of a
// pre-candidate, and the second pre-vote is granted.
func Reference(ctx context.Context) (*record.Trace, error) {
	sim, err := record.NewSim(System(), nil, 0)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	b := &builder{ctx: ctx, sim: sim}
	for i := 1; i <= 3; i++ {
		b.apply(record.StartEvent(m(i)))
	}
	b.timer(1, timerCampaign)
	b.deliver(1, 2, is[PreVote])
	b.deliver(2, 1, is[PreVoteResp]) // a majority of pre-votes: etcd-1 campaigns for term 2
	b.deliver(1, 2, is[Vote])
	b.deliver(2, 1, is[VoteResp]) // etcd-1 leads term 2
	b.deliver(1, 2, is[App])
	b.deliver(1, 3, is[PreVote]) // the link to etcd-3 is FIFO: its
	b.deliver(1, 3, is[Vote])    // pre-vote and vote come first
	b.deliver(1, 3, is[App])     // both followers name etcd-1 as leader
	b.apply(record.PartitionEvent([]record.ActorID{m(1)}, []record.ActorID{m(2), m(3)}))
	for b.err == nil && sim.Check() == nil {
		b.timer(3, timerCampaign)
		b.deliver(3, 2, is[PreVote]) // ignored: etcd-2 still has a leader
		b.timer(2, timerCampaign)
		b.deliver(2, 3, is[PreVote]) // ignored: so has etcd-3, a pre-candidate
	}
	if b.err != nil {
		return nil, fmt.Errorf("reference: %w", b.err)
	}
	v := sim.Check()
	t := sim.Trace(v)
	t.Header.Note = "hand-built reference reproducer (examples/realbugs/prevote/etcdraft33/reference.go)"
	return t, nil
}

// builder applies a schedule step by step and remembers the first error.
// Every step but the last must leave the run without a violation.
type builder struct {
	ctx  context.Context
	sim  *record.Sim
	err  error
	step int
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
	if v := b.sim.Check(); v != nil {
		b.fail("violation before the schedule's end: %v", v)
		return false
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

// timer fires member i's timer key.
func (b *builder) timer(i int, key string) {
	b.pick(func(p record.Pending) bool { return p.To == m(i) && p.Timer == key },
		fmt.Sprintf("timer %s at %s", key, m(i)))
}

// deliver delivers the first pending message from member i to member j
// that ok accepts.
func (b *builder) deliver(i, j int, ok func(record.Message) bool) {
	b.pick(func(p record.Pending) bool { return p.From == m(i) && p.To == m(j) && p.Timer == "" && ok(p.Msg) },
		fmt.Sprintf("a message %s→%s", m(i), m(j)))
}

func (b *builder) pick(want func(record.Pending) bool, what string) {
	if !b.before() {
		return
	}
	for _, p := range b.sim.Enabled(nil) {
		if want(p) {
			if err := b.sim.Deliver(p.ID); err != nil {
				b.fail("%v", err)
			}
			return
		}
	}
	b.fail("%s is not enabled", what)
}

// is reports whether msg has type T.
func is[T any](msg record.Message) bool { _, ok := msg.(T); return ok }
