// Package tokenring is demi's smallest example system: a token passed
// around a ring of actors. It exercises every kind of event the runtime has
// (start, kill, crash-restart, external send, partition, heal, both wait
// markers, timers, seeded randomness and stable storage) in a few dozen
// lines, so the runtime is tested end to end on something a person can
// follow in full.
//
// An external Inject message hands the token to an actor. The holder arms a
// "pass" timer; when it fires, it passes the token to a random other actor
// (drawn from ctx.Rand()). Every actor writes the last token it took to
// stable storage. The invariant: at most one actor holds the token.
//
// Bug switches:
//   - restore-token: an actor that crash-restarts takes the last token it
//     saw from stable storage, although it may have passed it on long ago,
//     so two actors hold it.
//   - panic-on-lap: an actor panics when the token comes back to it after
//     visiting every other actor (a handler panic becomes a violation).
package tokenring

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/demi-project/demi/record"
)

// Inject gives an actor the token (an external message).
type Inject struct{ Serial int }

// Token is the token passed between actors.
type Token struct {
	Serial int
	Hops   int
}

// Pass is the timer that makes the holder pass the token on.
type Pass struct{}

// Node is one actor of the ring.
type Node struct {
	id      record.ActorID
	members []record.ActorID
	opts    record.Options
	holding bool
	token   Token
	seen    int // tokens seen since start
}

// Start reads stable storage; with restore-token it restores the token.
func (n *Node) Start(ctx *record.Context) {
	if !n.opts.Bool("restore-token") {
		return
	}
	if t, ok := ctx.Storage().Get("token"); ok {
		n.take(ctx, t.(Token))
	}
}

// Receive handles the token, injections and the pass timer.
func (n *Node) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Inject:
		n.take(ctx, Token{Serial: m.Serial})
	case Token:
		n.take(ctx, m)
	case Pass:
		if !n.holding {
			return
		}
		others := make([]record.ActorID, 0, len(n.members))
		for _, id := range n.members {
			if id != n.id {
				others = append(others, id)
			}
		}
		to := others[ctx.Rand().IntN(len(others))]
		n.holding = false
		ctx.Send(to, Token{Serial: n.token.Serial, Hops: n.token.Hops + 1})
	}
}

func (n *Node) take(ctx *record.Context, t Token) {
	n.seen++
	if n.opts.Bool("panic-on-lap") && t.Hops >= len(n.members) && t.Hops%len(n.members) == 0 {
		panic(fmt.Sprintf("token %d completed a lap", t.Serial))
	}
	n.holding, n.token = true, t
	ctx.Storage().Put("token", t)
	ctx.SetTimer("pass", Pass{})
}

// Snapshot shows the node's state.
func (n *Node) Snapshot() any {
	return map[string]any{"holding": n.holding, "hops": n.token.Hops, "seen": n.seen}
}

// Holding reports whether the node holds the token.
func (n *Node) Holding() bool { return n.holding }

func members(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int("size"))
	for i := range ids {
		ids[i] = record.ActorID(fmt.Sprintf("n%d", i+1))
	}
	return ids
}

func invariant(v record.View) *record.Violation {
	var holders []string
	for _, id := range v.Members() {
		if n, ok := v.Actor(id).(*Node); ok && n.holding {
			holders = append(holders, string(id))
		}
	}
	if len(holders) > 1 {
		return &record.Violation{
			Fingerprint: "two-tokens",
			Detail:      "token held by " + strings.Join(holders, " and "),
		}
	}
	return nil
}

func pick(r *rand.Rand, v record.View) record.ActorID {
	m := v.Members()
	return m[r.IntN(len(m))]
}

// System returns the token ring system definition.
func System() *record.System {
	return &record.System{
		Name: "tokenring",
		Doc:  "a token passed around a ring (the runtime's smoke test)",
		Options: []record.OptionSpec{
			{Name: "size", Default: "3", Usage: "number of actors", Min: 1, Max: 64},
			{Name: "restore-token", Default: "false", Usage: "restarted actors restore the token from storage", Bug: true},
			{Name: "panic-on-lap", Default: "false", Usage: "an actor panics when the token completes a lap", Bug: true},
		},
		Members: members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return &Node{id: id, members: members(o), opts: o}
		},
		Messages:  []record.Message{Inject{}, Token{}, Pass{}},
		Invariant: invariant,
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range members(o) {
				evs = append(evs, record.StartEvent(id))
			}
			return append(evs, record.SendEvent("n1", Inject{Serial: 1}), record.WaitConditionEvent("token-held", 10))
		},
		Externals: []record.Generator{
			{Name: "restart", Weight: 2, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				return record.RestartEvent(pick(r, v)), true
			}},
			{Name: "kill-start", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				id := pick(r, v)
				if v.Running(id) {
					return record.KillEvent(id), true
				}
				return record.StartEvent(id), true
			}},
			{Name: "partition", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				a, b := pick(r, v), pick(r, v)
				if a == b {
					return record.Event{}, false
				}
				if v.Partitioned(a, b) {
					return record.HealEvent([]record.ActorID{a}, []record.ActorID{b}), true
				}
				return record.PartitionEvent([]record.ActorID{a}, []record.ActorID{b}), true
			}},
			{Name: "quiesce", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				return record.WaitQuiescenceEvent(20), true
			}},
		},
		Conditions: map[string]func(record.View) bool{
			"token-held": func(v record.View) bool {
				for _, id := range v.Members() {
					if n, ok := v.Actor(id).(*Node); ok && n.holding {
						return true
					}
				}
				return false
			},
		},
	}
}
