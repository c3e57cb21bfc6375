package minimize

import (
	"reflect"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Stand-in moves (run in the gather stage, after its gather moves:
// gather.go) change whom the environment names: the contents of the
// external messages are relabelled by the exchange of two members
// (through the system's record.Symmetry.Message), and everything else
// stays as it is: who starts, who gets which external message, who sends
// what to whom. Unlike a relabelling by a symmetry (relabel.go), which
// renames the run and its configuration together, so the run is the same
// execution with the roles exchanged, a stand-in move changes the
// configuration under the same actors: a Raft Bootstrap that listed a
// member the run never starts, or one that plays no part in the route,
// lists instead an actor that the run starts and that was outside the
// list (an outsider: it counts itself as a member of its own list, one
// more than the others).
//
// raft-58b's unseen fuzz seeds 30014 and 7139 are the examples. 7139
// minimizes to 12 deliveries (E:10), the one-leader route of the proven
// optimum but led by raft-1, which the Bootstrap lists (raft-2, raft-3,
// raft-4) leave out: its own list has four members, so it needs two
// votes, and all four actors start. With raft-1 in raft-4's place in the
// lists (the move of raft-1 and raft-3 first, in the members' order),
// raft-1 leads with one vote, and the descent leaves out what the other
// voter did: 9 deliveries (E:8), the optimum. 30014 minimizes to 23
// deliveries (E:8): the outsider raft-4 (the lists name raft-1, raft-2,
// raft-3, and raft-2 never starts) leads term 1 with the votes of raft-1
// and raft-3 and takes the first command, and raft-1 leads term 2 and
// takes the second. The gather moves build a one-leader route from every
// round, but none reaches the target's pair: the outsider's needs both
// other started actors as voters (no victim is left), a member's needs
// the never-started raft-2 as its voter (a gather move starts a
// never-started member late, as the victim), and no symmetry maps an
// outsider onto a member. With raft-4 in raft-2's place in the lists,
// raft-4 leads term 1 with one vote: 22 deliveries (E:8), a two-leader
// route of members, on which the stage lists its moves again, and the
// first gather move reaches the optimum, 9 deliveries (E:8).
//
// The moves are, for a system that declares a symmetry, every exchange
// of two members (in the members' order: the first member with each
// later one, then the second, ...) that changes the contents of an
// external message. Each is checked and followed by a descent like every
// move of the reorder stage (reorder.go), and helps only when it ends
// smaller than the best trace. They are a fixed list with fixed checks,
// so the result does not depend on Workers.

// standInEdits lists the stand-in moves of events (see above): none for
// a system without a symmetry.
func (m *minimizer) standInEdits(events []record.Event) []edit {
	sym := m.sys.Symmetry
	if sym == nil {
		return nil
	}
	members := m.sys.Members(m.resolved)
	var out []edit
	for i, a := range members {
		for _, b := range members[i+1:] {
			if ev, ok := standIn(sym, events, record.Perm{a: b, b: a}); ok {
				out = append(out, func(fp *fingerprint.Fingerprinter, _ dpor.Plan) dpor.Plan {
					return dpor.FromEvents(fp, ev)
				})
			}
		}
	}
	return out
}

// standIn returns events with the messages of the external sends and
// deliveries relabelled by p (record.Symmetry.Message), and whether that
// changed one of them.
func standIn(sym *record.Symmetry, events []record.Event, p record.Perm) ([]record.Event, bool) {
	out := slices.Clone(events)
	changed := false
	for i, e := range events {
		if e.From != record.External || e.Msg == nil {
			continue
		}
		out[i].Msg = sym.Message(e.Msg, p)
		if !reflect.DeepEqual(out[i].Msg, e.Msg) {
			changed = true
		}
	}
	return out, changed
}
