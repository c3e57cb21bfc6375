package paxos

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// agreement is the invariant: no two members decided different values.
// The fingerprint names the first two members (in member order) that
// disagree.
func agreement(v record.View) *record.Violation {
	var first record.ActorID
	var value string
	for _, id := range v.Members() {
		n, ok := v.Actor(id).(*Node)
		if !ok || n.decided == "" {
			continue
		}
		if first == "" {
			first, value = id, n.decided
			continue
		}
		if n.decided != value {
			return &record.Violation{
				Fingerprint: fmt.Sprintf("Agreement(%s,%s)", first, id),
				Detail:      fmt.Sprintf("%s decided %q and %s decided %q", first, value, id, n.decided),
			}
		}
	}
	return nil
}
