package minimize_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// A system written for no pass of minimize: leader election with terms on
// five members (Raft's election alone), whose bug (a restarted member
// forgets its vote) lets two members lead one term. Its fuzzed traces
// reach the violation through clock advances (election timers, nudges
// from outside) that only matter in pairs.
type (
	Timeout     struct{}
	Beat        struct{}
	RequestVote struct{ Term int }
	Grant       struct {
		Term int
		Yes  bool
	}
	Heartbeat struct{ Term int }
	Nudge     struct{}
)

func elMembers(o record.Options) []record.ActorID {
	var out []record.ActorID
	for i := 1; i <= o.Int("members"); i++ {
		out = append(out, record.ActorID(fmt.Sprintf("n%d", i)))
	}
	return out
}

type elNode struct {
	forget   bool
	peers    []record.ActorID
	term     int
	votedFor record.ActorID
	votes    map[record.ActorID]bool
	leader   bool
}

func (n *elNode) Start(ctx *record.Context) {
	st := ctx.Storage()
	if v, ok := st.Get("term"); ok {
		n.term = v.(int)
	}
	if v, ok := st.Get("vote"); ok && !n.forget {
		n.votedFor = v.(record.ActorID)
	}
	ctx.SetTimer("election", Timeout{})
}

func (n *elNode) persist(ctx *record.Context) {
	ctx.Storage().Put("term", n.term)
	ctx.Storage().Put("vote", n.votedFor)
}

func (n *elNode) adopt(ctx *record.Context, term int) {
	if term > n.term {
		n.term, n.votedFor, n.leader, n.votes = term, "", false, nil
		n.persist(ctx)
	}
}

func (n *elNode) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Timeout, Nudge:
		if n.leader {
			return
		}
		n.term++
		n.votedFor = ctx.Self()
		n.votes = map[record.ActorID]bool{ctx.Self(): true}
		n.persist(ctx)
		for _, p := range n.peers {
			if p != ctx.Self() {
				ctx.Send(p, RequestVote{n.term})
			}
		}
		ctx.SetTimer("election", Timeout{})
	case RequestVote:
		n.adopt(ctx, m.Term)
		yes := m.Term == n.term && (n.votedFor == "" || n.votedFor == from)
		if yes {
			n.votedFor = from
			n.persist(ctx)
		}
		ctx.Send(from, Grant{m.Term, yes})
	case Grant:
		n.adopt(ctx, m.Term)
		if m.Term != n.term || !m.Yes || n.votes == nil || n.leader {
			return
		}
		n.votes[from] = true
		if 2*len(n.votes) > len(n.peers) {
			n.leader = true
			ctx.CancelTimer("election")
			ctx.SetTimer("beat", Beat{})
			if l, ok := ctx.Storage().Get("led"); ok {
				ctx.Storage().Put("led", append(l.([]int), n.term))
			} else {
				ctx.Storage().Put("led", []int{n.term})
			}
		}
	case Beat:
		if n.leader {
			for _, p := range n.peers {
				if p != ctx.Self() {
					ctx.Send(p, Heartbeat{n.term})
				}
			}
			ctx.SetTimer("beat", Beat{})
		}
	case Heartbeat:
		n.adopt(ctx, m.Term)
		if m.Term == n.term {
			ctx.SetTimer("election", Timeout{})
		}
	}
}

func (n *elNode) Snapshot() any {
	return fmt.Sprintf("term=%d vote=%s leader=%v", n.term, n.votedFor, n.leader)
}

func (m RequestVote) LogicalClock() int { return m.Term }
func (m Grant) LogicalClock() int       { return m.Term }
func (m Heartbeat) LogicalClock() int   { return m.Term }

func electSystem() *record.System {
	return &record.System{
		Name: "elect",
		Doc:  "leader election with terms",
		Options: []record.OptionSpec{
			{Name: "members", Default: "5", Usage: "members", Min: 1, Max: 9},
			{Name: "forget-vote", Default: "false", Bug: true, Usage: "a member does not persist its vote"},
		},
		Members: elMembers,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return &elNode{forget: o.Bool("forget-vote"), peers: elMembers(o)}
		},
		Messages: []record.Message{Timeout{}, Beat{}, RequestVote{}, Grant{}, Heartbeat{}, Nudge{}},
		Invariant: func(v record.View) *record.Violation {
			ms := v.Members()
			by := map[int]record.ActorID{}
			for _, id := range ms {
				l, ok := v.Storage(id).Get("led")
				if !ok {
					continue
				}
				for _, t := range l.([]int) {
					if o, ok := by[t]; ok && o != id {
						return &record.Violation{Fingerprint: fmt.Sprintf("ElectionSafety(%s,%s)", o, id),
							Detail: fmt.Sprintf("%s and %s both led term %d", o, id, t)}
					}
					by[t] = id
				}
			}
			return nil
		},
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range elMembers(o) {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Externals: []record.Generator{
			{Name: "restart", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				ms := v.Members()
				return record.RestartEvent(ms[r.IntN(len(ms))]), true
			}},
			{Name: "nudge", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				ms := v.Members()
				return record.SendEvent(ms[r.IntN(len(ms))], Nudge{}), true
			}},
		},
	}
}

func (Timeout) AdvancesClock() bool { return true }
func (Nudge) AdvancesClock() bool   { return true }

// TestPairsOfClockAdvances: one-at-a-time removes two clock advances at
// once (a nudge from outside and an election timer), each needed while
// the other stays, taking a fuzzed trace of the election system from
// 12 (E:8), where every pass short of pairs ends, to 10 (E:7). (The best
// known is 10 (E:6): the nudge's member fires its election timer instead.)
func TestPairsOfClockAdvances(t *testing.T) {
	tr, sys, err := record.ReadFile(filepath.Join("testdata", "elect-forget-vote.trace"), record.NewCatalog(electSystem()))
	require.NoError(t, err)
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, 10, res.Trace.Header.Deliveries)
	assert.Equal(t, 7, res.Trace.Header.Externals)
}
