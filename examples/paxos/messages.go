package paxos

import "fmt"

// Propose asks a member to get Value chosen (an external message, from a
// client).
type Propose struct{ Value string }

// Prepare is phase 1a: the proposer asks for a promise to ignore ballots
// below Ballot.
type Prepare struct{ Ballot int }

// Promise is phase 1b: the acceptor promises Ballot and reports the ballot
// and value it accepted last (AcceptedBallot 0: none).
type Promise struct {
	Ballot         int
	AcceptedBallot int
	AcceptedValue  string
}

// Accept is phase 2a: the proposer asks acceptors to accept Value in
// Ballot.
type Accept struct {
	Ballot int
	Value  string
}

// Accepted is phase 2b: the acceptor accepted Ballot.
type Accepted struct{ Ballot int }

// Round places every message in the round of its ballot (a client's
// Propose is outside rounds), for demi show --rounds.
func (m Prepare) Round() (int, string)  { return m.Ballot, "1a" }
func (m Promise) Round() (int, string)  { return m.Ballot, "1b" }
func (m Accept) Round() (int, string)   { return m.Ballot, "2a" }
func (m Accepted) Round() (int, string) { return m.Ballot, "2b" }

func (m Promise) String() string {
	if m.AcceptedBallot == 0 {
		return fmt.Sprintf("Promise{b%d}", m.Ballot)
	}
	return fmt.Sprintf("Promise{b%d accepted b%d=%s}", m.Ballot, m.AcceptedBallot, m.AcceptedValue)
}
