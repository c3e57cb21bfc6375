package etcdraft

import (
	"slices"
	"strings"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// lowerBound is the system's admissible bound (record.System.LowerBound)
// on what a run still spends to show a violation: of Linearizability
// (readsBound), or raft's panic in loadState (restartBound); the other
// violations get 0.
func lowerBound(g record.Goal) int {
	switch {
	case g.Want == nil:
		return 0
	case strings.HasPrefix(g.Want.Fingerprint, kvapp.Linearizability+"("):
		return readsBound(g)
	case strings.HasPrefix(g.Want.Fingerprint, "panic: ") && strings.HasSuffix(g.Want.Fingerprint, "@ raft.(*raft).loadState"):
		return restartBound(g)
	}
	return 0
}

// restartBound: raft checks the HardState it reads back against the log
// in loadState, which runs only when a member starts (Member.Start, on a
// Start or a Restart) from stable storage a run wrote: the panic of a
// HardState ahead of its entries (hardstate-before-entries,
// skip-snapshot-persist) needs a Start or a Restart still to come. None
// makes it unreachable: a search from a cut of a trace whose only later
// external event is its restart, left out, stops at once. A member whose
// start did not finish (no RawNode: raft panicked making it) shows the
// panic already.
func restartBound(g record.Goal) int {
	for _, id := range g.View.Members() {
		if m, ok := g.View.Actor(id).(*Member); ok && m.ms != nil && m.rn == nil {
			return 0
		}
	}
	if slices.ContainsFunc(g.Future, func(e record.Event) bool { return e.Kind == record.Start || e.Kind == record.Restart }) {
		if g.CountExternals {
			return 1
		}
		return 0
	}
	return record.Unreachable
}

// readsBound bounds what a stale read still needs.
//
// A history with no write linearizes (every read returns the initial
// state, the first place in every key's write order) and so does one with
// no read, whatever the bug: the violation needs a client Put and a client
// Get. Each costs nothing once a member received it (a Put is in some
// member's history from its arrival on, a Get from its arrival in the
// member's reads in progress, then in its history), one delivery while it
// is in flight, and its send (an external event, with CountExternals) and
// its delivery while it is still to come from outside. None to come makes
// the violation unreachable: the exact searches then stop at once instead
// of walking every schedule of the elections (a search from a cut of a
// trace whose only later external event is its Put, left out).
//
// Per request the bound counts a different delivery (the Put's, the
// Get's), so the two parts add up.
func readsBound(g record.Goal) int {
	put, get := record.Unreachable, record.Unreachable
	for _, id := range g.View.Members() {
		if l := kvapp.Stored(g.View.Storage(id)); l.Reads > 0 {
			get = 0
			if len(l.Ops) > l.Reads {
				put = 0
			}
		} else if len(l.Ops) > 0 {
			put = 0
		}
		if m, ok := g.View.Actor(id).(*Member); ok && len(m.reads) > 0 {
			get = 0
		}
	}
	for _, p := range g.InFlight {
		switch p.Msg.(type) {
		case Put:
			put = min(put, 1)
		case Get:
			get = min(get, 1)
		}
	}
	ext := 1
	if g.CountExternals {
		ext = 2
	}
	for _, e := range g.Future {
		if e.Kind != record.Send {
			continue
		}
		switch e.Msg.(type) {
		case Put:
			put = min(put, ext)
		case Get:
			get = min(get, ext)
		}
	}
	return min(put+get, record.Unreachable)
}
