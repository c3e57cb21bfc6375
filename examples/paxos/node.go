package paxos

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// Node is one member: proposer and acceptor.
type Node struct {
	id      record.ActorID
	members []record.ActorID
	index   int // position in members, from 0
	bugs    bugs

	// Acceptor.
	promised       int    // highest ballot promised (0: none)
	acceptedBallot int    // ballot of the value accepted last (0: none)
	acceptedValue  string // value accepted last

	// Proposer: the ballot it runs (0: none), its own value, and the
	// answers of this ballot (per member, itself included).
	ballot   int
	value    string
	promises []bool
	accepts  []bool
	best     int    // highest accepted ballot reported in promises
	bestVal  string // its value
	phase2   bool

	decided string // the value this member's ballot got chosen, or ""
}

func newNode(id record.ActorID, members []record.ActorID, b bugs) *Node {
	return &Node{id: id, members: members, index: slices.Index(members, id), bugs: b}
}

// Decided returns the value the member decided, or "".
func (n *Node) Decided() string { return n.decided }

// Snapshot shows the member's state.
func (n *Node) Snapshot() any {
	return map[string]any{"promised": n.promised, "accepted": n.acceptedBallot, "value": n.acceptedValue,
		"ballot": n.ballot, "decided": n.decided}
}

// Receive handles one message.
func (n *Node) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Propose:
		n.propose(ctx, m.Value)
	case Prepare:
		if m.Ballot > n.promised {
			n.promised = m.Ballot
			ctx.Send(from, Promise{Ballot: m.Ballot, AcceptedBallot: n.acceptedBallot, AcceptedValue: n.acceptedValue})
		}
	case Promise:
		n.onPromise(ctx, from, m)
	case Accept:
		if m.Ballot >= n.promised || n.bugs.acceptBelowPromise {
			n.promised = max(n.promised, m.Ballot)
			n.acceptedBallot, n.acceptedValue = m.Ballot, m.Value
			ctx.Send(from, Accepted{Ballot: m.Ballot})
		}
	case Accepted:
		if m.Ballot == n.ballot && n.phase2 {
			n.accepts[slices.Index(n.members, from)] = true
			if n.decided == "" && majority(n.accepts) {
				n.decided = n.value
			}
		}
	}
}

// propose starts a ballot above every ballot seen, promising and (in phase
// 2) accepting it locally.
func (n *Node) propose(ctx *record.Context, v string) {
	round := max(n.promised, n.ballot)/len(n.members) + 1
	n.ballot = round*len(n.members) + n.index
	n.value, n.phase2 = v, false
	n.promises = make([]bool, len(n.members))
	n.accepts = make([]bool, len(n.members))
	n.best, n.bestVal = 0, ""
	// Its own acceptor promises without a message.
	n.promised = n.ballot
	n.promises[n.index] = true
	n.note(n.acceptedBallot, n.acceptedValue)
	for _, id := range n.members {
		if id != n.id {
			ctx.Send(id, Prepare{Ballot: n.ballot})
		}
	}
	n.maybeAccept(ctx)
}

func (n *Node) onPromise(ctx *record.Context, from record.ActorID, m Promise) {
	if m.Ballot != n.ballot || n.phase2 {
		return
	}
	n.promises[slices.Index(n.members, from)] = true
	n.note(m.AcceptedBallot, m.AcceptedValue)
	n.maybeAccept(ctx)
}

// note records an accepted value reported by a promise (or its own).
func (n *Node) note(ballot int, v string) {
	if ballot > n.best {
		n.best, n.bestVal = ballot, v
	}
}

// maybeAccept starts phase 2 once a majority promised.
func (n *Node) maybeAccept(ctx *record.Context) {
	if !majority(n.promises) {
		return
	}
	n.phase2 = true
	if n.best > 0 && !n.bugs.forgetAccepted {
		n.value = n.bestVal // the value that may have been chosen
	}
	// Its own acceptor accepts without a message, unless it promised a
	// higher ballot meanwhile.
	if n.ballot >= n.promised {
		n.acceptedBallot, n.acceptedValue = n.ballot, n.value
		n.accepts[n.index] = true
	}
	for _, id := range n.members {
		if id != n.id {
			ctx.Send(id, Accept{Ballot: n.ballot, Value: n.value})
		}
	}
}

func majority(votes []bool) bool {
	k := 0
	for _, v := range votes {
		if v {
			k++
		}
	}
	return 2*k > len(votes)
}
