package etcdraft

import (
	"strings"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// lowerBound is the system's admissible bound (record.System.LowerBound)
// on what a run still spends to show a violation of Linearizability; the
// other invariants get 0.
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
func lowerBound(g record.Goal) int {
	if g.Want == nil || !strings.HasPrefix(g.Want.Fingerprint, kvapp.Linearizability+"(") {
		return 0
	}
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
