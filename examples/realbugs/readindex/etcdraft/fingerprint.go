package etcdraft

import (
	"strconv"

	"go.etcd.io/raft/v3/raftpb"

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
//
// The string is "KIND FROM>TO", then " reject", then each entry's data
// quoted (Go syntax), then " snapshot" when the message carries one. It is
// built by appending (minimization fingerprints every message once per
// schedule it is matched in, so this is on the hot path).
func fingerprint(msg record.Message) (string, bool) {
	m := carried(msg)
	if m == nil {
		return "", false
	}
	b := make([]byte, 0, 32)
	b = append(b, m.Type.String()...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, m.From, 10)
	b = append(b, '>')
	b = strconv.AppendUint(b, m.To, 10)
	if m.Reject {
		b = append(b, " reject"...)
	}
	// A read's request context (the only entry of a ReadIndex and of its
	// answer) is named after the event at which the read arrived, which
	// shifts whenever minimization removes an earlier event: it is left
	// out, so that a read's requests are the same messages across runs.
	readCtx := m.Type == raftpb.MsgReadIndex || m.Type == raftpb.MsgReadIndexResp
	for _, e := range m.Entries {
		if readCtx {
			break
		}
		b = append(b, ' ')
		b = strconv.AppendQuote(b, string(e.Data))
	}
	if m.Snapshot != nil {
		b = append(b, " snapshot"...)
	}
	return string(b), true
}
