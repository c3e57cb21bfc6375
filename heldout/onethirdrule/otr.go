// Package onethirdrule is the OneThirdRule consensus algorithm of
// Charron-Bost and Schiper's Heard-Of model, written as demi actors. It is
// a held-out system (see ../README.md): demi's minimizer is measured on it,
// never tuned on it.
//
// N members (5 by default) each get an initial value from a client (the
// external message Propose). From then on a member runs rounds 1, 2, ...;
// in round r it broadcasts its current value x to every other member
// (Estimate{r, x}) and counts its own value without a message. The set of
// members whose round-r value it received is its heard-of set HO(p, r).
// The round ends when the member has heard from all N members, or when its
// round timer fires (the scheduler fires it at any step, so HO sets can be
// anything from itself alone to everyone). At the end of round r:
//
//   - if |HO(p, r)| > 2N/3, x := the smallest most frequent value received;
//   - and if more than 2N/3 of the values received equal x, p decides x.
//
// Rounds are communication-closed: a value of an earlier round is
// ignored; a value of a later round r' ends the current round (with the
// values heard so far) and moves the member to round r' at once (the
// rounds in between have an empty HO set, which changes nothing). A member
// keeps its round, value, proposal and decision in stable storage, so a
// crash-restart (an external event of fuzz runs) resumes the round it was
// in, with an empty HO set, and sends its value of that round again.
//
// OneThirdRule is safe whatever the HO sets: once more than 2N/3 members
// hold v, every member that hears from more than 2N/3 adopts v (fewer than
// N/3 of the values it hears can differ), so no other value ever reaches
// more than 2N/3 again.
//
// Invariants: Agreement (no two members decide different values) and
// Integrity (a member decides a value some member was asked to propose,
// and never decides another value later).
//
// Bug switch:
//   - decide-two-thirds-of-received: a member that heard from more than
//     2N/3 decides v when more than 2/3 of the values it RECEIVED (not of
//     N) equal v; with N = 5, three equal values out of four heard are
//     enough, and the two members left out can move the others to another
//     value, which is then decided.
package onethirdrule

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/demi-project/demi/record"
)

// Option names.
const (
	OptMembers       = "members"
	OptValues        = "values"
	OptProposeWeight = "propose-weight"
	OptRestartWeight = "restart-weight"
	BugDecideOfHeard = "decide-two-thirds-of-received"
)

// Propose asks a member to start with Value (an external message, from a
// client). Values are 1, 2, ...; a member takes only its first Propose.
type Propose struct{ Value int }

// Estimate is a member's value in a round.
type Estimate struct {
	R     int // the round
	Value int
}

// RoundTimeout is the timer that ends a member's round with the values it
// heard so far.
type RoundTimeout struct{}

// Round places an estimate in its round, for demi show --rounds.
func (m Estimate) Round() (int, string) { return m.R, "estimate" }

// LogicalClock is the estimate's round.
func (m Estimate) LogicalClock() int { return m.R }

// AdvancesClock: a round timeout moves its member to the next round.
func (RoundTimeout) AdvancesClock() bool { return true }

func (m Estimate) String() string { return fmt.Sprintf("Estimate{r%d %d}", m.R, m.Value) }

// state is what a member keeps in stable storage.
type state struct {
	Round    int // current round (0: no proposal yet)
	X        int // current value
	Proposal int // its initial value
	Decided  int // decided value (0: none)
	Changed  int // a later decision that differs from Decided (0: none)
}

// Node is one member.
type Node struct {
	id      record.ActorID
	index   int
	members []record.ActorID
	bug     bool

	st    state
	heard []int // value heard from each member in the current round (0: none)
}

func newNode(id record.ActorID, members []record.ActorID, bug bool) *Node {
	return &Node{id: id, index: slices.Index(members, id), members: members, bug: bug,
		heard: make([]int, len(members))}
}

// Decision returns the member's decision (0: none).
func (n *Node) Decision() int { return n.st.Decided }

// Value returns the member's current value and round.
func (n *Node) Value() (x, round int) { return n.st.X, n.st.Round }

// Snapshot shows the member's state.
func (n *Node) Snapshot() any {
	return map[string]any{"round": n.st.Round, "x": n.st.X, "proposal": n.st.Proposal,
		"decided": n.st.Decided, "heard": slices.Clone(n.heard)}
}

// Start resumes the round kept in stable storage, if any.
func (n *Node) Start(ctx *record.Context) {
	if s, ok := ctx.Storage().Get("state"); ok {
		n.st = s.(state)
	}
	if n.st.Round > 0 {
		n.enter(ctx, n.st.Round)
	}
}

// Receive handles one message.
func (n *Node) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Propose:
		if n.st.Round == 0 && m.Value > 0 {
			n.st.X, n.st.Proposal = m.Value, m.Value
			n.enter(ctx, 1)
		}
	case Estimate:
		if n.st.Round == 0 || m.R < n.st.Round || m.Value <= 0 {
			return
		}
		if m.R > n.st.Round {
			n.endRound()
			n.enter(ctx, m.R)
		}
		if i := slices.Index(n.members, from); i >= 0 {
			n.heard[i] = m.Value
		}
		n.maybeComplete(ctx)
	case RoundTimeout:
		if n.st.Round > 0 {
			n.endRound()
			n.enter(ctx, n.st.Round+1)
		}
	}
}

// maybeComplete ends the round once every member was heard from.
func (n *Node) maybeComplete(ctx *record.Context) {
	for _, v := range n.heard {
		if v == 0 {
			return
		}
	}
	n.endRound()
	n.enter(ctx, n.st.Round+1)
}

// enter starts round r: it keeps the state, counts its own value, sends
// it to the others and arms the round timer.
func (n *Node) enter(ctx *record.Context, r int) {
	n.st.Round = r
	ctx.Storage().Put("state", n.st)
	clear(n.heard)
	n.heard[n.index] = n.st.X
	for _, id := range n.members {
		if id != n.id {
			ctx.Send(id, Estimate{R: r, Value: n.st.X})
		}
	}
	// Also with a single member, who has heard from everyone at once:
	// the timer ends its rounds.
	ctx.SetTimer("round", RoundTimeout{})
}

// endRound applies the round's transition to the values heard.
func (n *Node) endRound() {
	x, decide := Transition(n.heard, n.st.X, len(n.members), n.bug)
	n.st.X = x
	if decide != 0 {
		switch {
		case n.st.Decided == 0:
			n.st.Decided = decide
		case n.st.Decided != decide && n.st.Changed == 0:
			n.st.Changed = decide
		}
	}
}

// Transition is OneThirdRule's end of round: heard holds the value
// received from each member (0: none), x the member's value, n the number
// of members. It returns the new value and the value decided (0: none).
// With bug, the decision counts against the values received instead of n.
func Transition(heard []int, x, n int, bug bool) (newX, decide int) {
	counts := map[int]int{}
	received := 0
	for _, v := range heard {
		if v != 0 {
			counts[v]++
			received++
		}
	}
	if 3*received <= 2*n {
		return x, 0
	}
	best, bestCount := 0, 0
	for v, c := range counts {
		if c > bestCount || (c == bestCount && v < best) {
			best, bestCount = v, c
		}
	}
	quorum := n
	if bug {
		quorum = received
	}
	if 3*bestCount > 2*quorum {
		return best, best
	}
	return best, 0
}

func members(o record.Options) []record.ActorID {
	ids := make([]record.ActorID, o.Int(OptMembers))
	for i := range ids {
		ids[i] = record.ActorID(fmt.Sprintf("p%d", i+1))
	}
	return ids
}

// invariant checks Agreement, then Integrity.
func invariant(v record.View) *record.Violation {
	var first record.ActorID
	value := 0
	for _, id := range v.Members() {
		d := decisionOf(v, id)
		if d == 0 {
			continue
		}
		if first == "" {
			first, value = id, d
			continue
		}
		if d != value {
			return &record.Violation{
				Fingerprint: fmt.Sprintf("Agreement(%s,%s)", first, id),
				Detail:      fmt.Sprintf("%s decided %d and %s decided %d", first, value, id, d),
			}
		}
	}
	proposed := map[int]bool{}
	for _, id := range v.Members() {
		if s, ok := stored(v, id); ok && s.Proposal != 0 {
			proposed[s.Proposal] = true
		}
	}
	for _, id := range v.Members() {
		s, ok := stored(v, id)
		if !ok {
			continue
		}
		if s.Decided != 0 && !proposed[s.Decided] {
			return &record.Violation{Fingerprint: fmt.Sprintf("Integrity(%s)", id),
				Detail: fmt.Sprintf("%s decided %d, which no member was asked to propose", id, s.Decided)}
		}
		if s.Changed != 0 {
			return &record.Violation{Fingerprint: fmt.Sprintf("Integrity(%s)", id),
				Detail: fmt.Sprintf("%s decided %d, then %d", id, s.Decided, s.Changed)}
		}
	}
	return nil
}

// decisionOf is a member's decision: its fields when it runs, its stable
// storage when it is down.
func decisionOf(v record.View, id record.ActorID) int {
	if n, ok := v.Actor(id).(*Node); ok && v.Running(id) {
		return n.st.Decided
	}
	if s, ok := stored(v, id); ok {
		return s.Decided
	}
	return 0
}

// stored is a member's stable state, if any. A running member stores its
// state before every round, so its decision of the round it just ended
// may still be only in its fields: read those when it runs.
func stored(v record.View, id record.ActorID) (state, bool) {
	if n, ok := v.Actor(id).(*Node); ok && v.Running(id) {
		return n.st, true
	}
	if x, ok := v.Storage(id).Get("state"); ok {
		return x.(state), true
	}
	return state{}, false
}

// makeExternal draws one external event by the weight options: a Propose
// to a member that has no value yet, or a crash-restart of a member.
func makeExternal(r *rand.Rand, v record.View) (record.Event, bool) {
	o := v.Options()
	wp, wr := max(0, o.Int(OptProposeWeight)), max(0, o.Int(OptRestartWeight))
	if wp+wr == 0 {
		return record.Event{}, false
	}
	ms := v.Members()
	id := ms[r.IntN(len(ms))]
	if r.IntN(wp+wr) < wp {
		if !unproposed(v, id) {
			return record.Event{}, false
		}
		return record.SendEvent(id, Propose{Value: 1 + r.IntN(o.Int(OptValues))}), true
	}
	if !v.Running(id) {
		return record.Event{}, false
	}
	return record.RestartEvent(id), true
}

// eachExternal lists the events makeExternal could return in v.
func eachExternal(v record.View) []record.Event {
	o := v.Options()
	var evs []record.Event
	for _, id := range v.Members() {
		if o.Int(OptProposeWeight) > 0 && unproposed(v, id) {
			for val := 1; val <= o.Int(OptValues); val++ {
				evs = append(evs, record.SendEvent(id, Propose{Value: val}))
			}
		}
		if o.Int(OptRestartWeight) > 0 && v.Running(id) {
			evs = append(evs, record.RestartEvent(id))
		}
	}
	return evs
}

// unproposed reports whether a member has no value yet.
func unproposed(v record.View, id record.ActorID) bool {
	s, ok := stored(v, id)
	return !ok || s.Round == 0
}

// System returns the OneThirdRule system definition.
func System() *record.System {
	return &record.System{
		Name: "onethirdrule",
		Doc:  "OneThirdRule consensus (Heard-Of model), rounds ended by a timer or by hearing from everyone",
		Options: []record.OptionSpec{
			{Name: OptMembers, Default: "5", Usage: "number of members", Min: 1, Max: 9},
			{Name: OptValues, Default: "3", Usage: "initial values are drawn from 1..values", Min: 1, Max: 9},
			{Name: OptProposeWeight, Default: "10", Usage: "fuzzing weight of proposals (to members without a value)", Min: 0, Max: 1000},
			{Name: OptRestartWeight, Default: "1", Usage: "fuzzing weight of crash-restarts", Min: 0, Max: 1000},
			{Name: BugDecideOfHeard, Default: "false", Bug: true,
				Usage: "decide when more than 2/3 of the values received (not of N) are equal"},
		},
		Members: members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			return newNode(id, members(o), o.Bool(BugDecideOfHeard))
		},
		Messages:  []record.Message{Propose{}, Estimate{}, RoundTimeout{}},
		Invariant: invariant,
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range members(o) {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Externals: []record.Generator{{Name: "otr-external", Weight: 1, Make: makeExternal, Each: eachExternal}},
		Swarm: &record.SwarmSpec{
			Options: []record.SwarmOption{
				// Proposals are the workload: always on.
				{Name: OptProposeWeight, Off: 0, Min: 5, Max: 40},
				{Name: OptRestartWeight, Off: 0.5, Min: 1, Max: 4},
			},
			TimerProb:    [2]float64{0.01, 0.2},
			TimerMembers: 5,
		},
	}
}
