package minimize

import (
	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Reroute moves (part of the reorder stage, reorder.go) escape a local
// minimum that removals cannot: the violation needs some actor to receive
// a message of a kind, and the best trace delivers it from one sender
// only after a detour (a second leader elected to send what the first
// leader had pending all along). A reroute removes a window of consecutive
// deliveries and lets every later delivery take, when nothing on its own
// link matches, a message of the same type to the same receiver from
// another sender, or from the same sender to another receiver
// (dpor.Step.Reroute). The descent that follows every move removes what
// the new route no longer needs.

// rerouteEdits lists the reroute moves of events, in a fixed order: every
// window of consecutive deliveries (externals between them stay), shortest
// first, from the end.
func rerouteEdits(events []record.Event) []edit {
	dels := deliveryIndices(events)
	if len(dels) > maxRerouteDeliveries {
		return nil
	}
	var out []edit
	for w := 1; w < len(dels); w++ {
		for s := len(dels) - w; s >= 0; s-- {
			drop := dels[s : s+w]
			out = append(out, rerouted(drop))
		}
	}
	return out
}

// rerouted drops the deliveries at the sorted indices drop; the deliveries
// after the first dropped one are wildcards that may be rerouted.
func rerouted(drop []int) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		return dropped(bp, drop, drop[0]+1, true)
	}
}
