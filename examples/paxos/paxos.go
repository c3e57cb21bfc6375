// Package paxos is single-decree Paxos on five actors: the smallest
// consensus protocol that still has two phases, quorums that must
// intersect, and the classic ways to get them wrong. It is the example the
// exhaustive search (demi optimal) is measured on: no timers, so a run
// ends, and a violation takes about twenty deliveries.
//
// Every member is a proposer and an acceptor. A client asks a
// member to get a value chosen with an external Propose message. The
// member, as proposer, picks a ballot above any it has seen (ballots are
// unique: round times the number of members plus its own index, from 1)
// and runs two phases, counting itself as an acceptor without a message:
//
//   - Phase 1: it sends Prepare(ballot) to every other member. An acceptor
//     that has promised no higher ballot promises this one and answers
//     Promise with the ballot and value it accepted last, if any.
//   - Phase 2: with promises from a majority (itself included), it sends
//     Accept(ballot, value) to every other member, where value is the
//     value of the highest accepted ballot among the promises, or its own
//     when none had accepted anything. An acceptor that has promised no
//     higher ballot accepts it and answers Accepted.
//   - With acceptances from a majority (itself included) the proposer
//     decides the value (it was chosen).
//
// An acceptor ignores what is below its promise, and a proposer that does
// not gather a majority gives up: liveness (retries with higher ballots) is
// not what this example is about, and without timers every run ends.
// Members do not crash here (the system injects no external event beyond
// its setup), so an acceptor keeps its promise in its fields; a real one
// keeps it in stable storage.
//
// The invariant is Agreement: no two members decide different values.
//
// Bug switches (each breaks one rule above):
//   - forget-accepted: a proposer ignores the values reported in promises
//     and always proposes its own, so a second proposer can get another
//     value chosen after a first was.
//   - accept-below-promise: an acceptor accepts an Accept whose ballot is
//     below the ballot it promised, so a proposer can finish phase 2 with
//     acceptors that have already promised (and accepted for) a later
//     proposer.
package paxos

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// System returns the paxos system definition.
func System() *record.System {
	return &record.System{
		Name: "paxos",
		Doc:  "single-decree Paxos on five members, two clients proposing different values",
		Options: []record.OptionSpec{
			{Name: "members", Default: "5", Usage: "number of members", Min: 1, Max: 9},
			{Name: "forget-accepted", Default: "false", Usage: "a proposer ignores the accepted values reported in promises", Bug: true},
			{Name: "accept-below-promise", Default: "false", Usage: "an acceptor accepts ballots below its promise", Bug: true},
		},
		Members: members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return newNode(id, members(o), bugsOf(o))
		},
		Messages:  []record.Message{Propose{}, Prepare{}, Promise{}, Accept{}, Accepted{}},
		Invariant: agreement,
		// What Agreement still needs (lowerbound.go), for the exact searches.
		LowerBound: lowerBound,
		// Every member starts; the first and the last member are asked to
		// propose different values.
		Setup: func(o record.Options) []record.Event {
			ms := members(o)
			var evs []record.Event
			for _, id := range ms {
				evs = append(evs, record.StartEvent(id))
			}
			return append(evs,
				record.SendEvent(ms[0], Propose{Value: "a"}),
				record.SendEvent(ms[len(ms)-1], Propose{Value: "b"}))
		},
	}
}

// members names the members p1, p2, ...
func members(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int("members"))
	for i := range ids {
		ids[i] = record.ActorID(fmt.Sprintf("p%d", i+1))
	}
	return ids
}

// bugs are the bug switches of a run.
type bugs struct {
	forgetAccepted, acceptBelowPromise bool
}

func bugsOf(o record.Options) bugs {
	return bugs{forgetAccepted: o.Bool("forget-accepted"), acceptBelowPromise: o.Bool("accept-below-promise")}
}
