package paxos

import (
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
)

// lowerBound is the system's admissible bound (record.System.LowerBound)
// on the deliveries (and, with CountExternals, external events) a run still
// spends before Agreement(a,b): a and b both decide, different values.
//
// A member decides only on its own ballot, once a majority accepted it, so
// each of a and b still needs, on its running ballot or on a new one:
//
//   - in phase 2, an Accepted of its ballot from each acceptor it still
//     lacks: one delivery when the Accepted is in flight, two when the
//     Accept to the acceptor is (then its answer), none else;
//   - in phase 1, likewise a Promise from each acceptor it still lacks
//     (one delivery, or two with the Prepare), then phase 2 from scratch:
//     an Accept and an Accepted for each other member of a majority (its
//     own acceptor may accept without a message);
//   - a new ballot: the Propose delivered (and sent, when still to come
//     from outside), then both phases from scratch.
//
// Every message counted carries the member's ballot or is addressed to it,
// and ballots are distinct per member (ballot mod members is its index),
// so what a needs and what b needs are different deliveries and add up.
// A member that has decided needs nothing more; two that decided the same
// value never disagree.
func lowerBound(g record.Goal) int {
	if g.Want == nil {
		return 0
	}
	rest, ok := strings.CutPrefix(g.Want.Fingerprint, "Agreement(")
	if !ok {
		return 0
	}
	a, b, ok := strings.Cut(strings.TrimSuffix(rest, ")"), ",")
	if !ok {
		return 0
	}
	na, _ := g.View.Actor(record.ActorID(a)).(*Node)
	nb, _ := g.View.Actor(record.ActorID(b)).(*Node)
	if na != nil && nb != nil && na.decided != "" && na.decided == nb.decided {
		return record.Unreachable
	}
	return min(decideCost(g, record.ActorID(a), na)+decideCost(g, record.ActorID(b), nb), record.Unreachable)
}

// decideCost bounds what member id (n; nil when it does not run) still
// spends to decide.
func decideCost(g record.Goal, id record.ActorID, n *Node) int {
	if n != nil && n.decided != "" {
		return 0
	}
	members := g.View.Members()
	majority := len(members)/2 + 1
	fresh := 4 * (majority - 1) // both phases of a new ballot
	best := record.Unreachable
	if n != nil && n.ballot > 0 {
		votes, ask, answer := n.promises, func(m record.Message) bool { p, ok := m.(Prepare); return ok && p.Ballot == n.ballot },
			func(m record.Message) bool { p, ok := m.(Promise); return ok && p.Ballot == n.ballot }
		if n.phase2 {
			votes, ask, answer = n.accepts, func(m record.Message) bool { p, ok := m.(Accept); return ok && p.Ballot == n.ballot },
				func(m record.Message) bool { p, ok := m.(Accepted); return ok && p.Ballot == n.ballot }
		}
		best = votesCost(g, id, members, votes, majority, ask, answer)
		if !n.phase2 {
			best = min(best+fresh/2, record.Unreachable)
		}
	}
	propose := record.Unreachable
	for _, p := range g.InFlight {
		if _, ok := p.Msg.(Propose); ok && p.To == id {
			propose = 1
			break
		}
	}
	if propose > 1 {
		ext := 1
		if g.CountExternals {
			ext = 2
		}
		if slices.ContainsFunc(g.Future, func(e record.Event) bool {
			_, ok := e.Msg.(Propose)
			return ok && e.Kind == record.Send && e.To == id
		}) {
			propose = ext
		}
	}
	return min(best, propose+fresh)
}

// votesCost bounds the deliveries that give member id the votes it lacks
// of a majority: for each other member without a vote, one if its answer
// to id is in flight, two if id's request to it is.
func votesCost(g record.Goal, id record.ActorID, members []record.ActorID, votes []bool, majority int,
	ask, answer func(record.Message) bool) int {
	need := majority
	for _, v := range votes {
		if v {
			need--
		}
	}
	if need <= 0 {
		return 0
	}
	var costs []int
	for i, m := range members {
		if m == id || i < len(votes) && votes[i] {
			continue
		}
		c := record.Unreachable
		for _, p := range g.InFlight {
			switch {
			case p.From == m && p.To == id && answer(p.Msg):
				c = 1
			case p.From == id && p.To == m && ask(p.Msg):
				c = min(c, 2)
			}
		}
		costs = append(costs, c)
	}
	if len(costs) < need {
		return record.Unreachable
	}
	slices.Sort(costs)
	sum := 0
	for _, c := range costs[:need] {
		sum += c
	}
	return min(sum, record.Unreachable)
}
