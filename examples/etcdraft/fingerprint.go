package etcdraft

import (
	"fmt"
	"strings"

	"github.com/demi-project/demi/record"
)

// fingerprint is the system's message fingerprint (record.System.Fingerprint):
// what makes a raft message "the same message" in another run of a
// minimization. It is the message's kind, sender and receiver, whether it
// rejects, and the data of the entries it carries, but not its term, log
// index, log term or commit index: removing an election or a client request
// from a schedule shifts every later term and index by one, and the later
// messages are still the same messages of the protocol. (demi's default,
// every field of the protobuf encoding, would see them all as new.) Timers
// and client requests keep the default.
func fingerprint(msg record.Message) (string, bool) {
	m := carried(msg)
	if m == nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v %d>%d", m.GetType(), m.GetFrom(), m.GetTo())
	if m.GetReject() {
		b.WriteString(" reject")
	}
	for _, e := range m.GetEntries() {
		fmt.Fprintf(&b, " %q", e.GetData())
	}
	if m.GetSnapshot() != nil {
		b.WriteString(" snapshot")
	}
	return b.String(), true
}
