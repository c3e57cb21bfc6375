package minimize

import (
	"context"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// Sink moves (the sink pass) escape a local minimum in which an
// external message takes a detour: its receiver forwards it, and the actor
// that finally handles it is another one. A fuzzed run sends a client
// command to a follower, which forwards it to whom it believes leads, which
// may forward it again; the removals keep every hop, and with them what
// made each hop possible (an election held only so that the follower
// learns who leads, the restarts that emptied its queues afterwards).
//
// The trace shows the detour without knowing the protocol: a forwarding
// chain is a delivery of the external message followed by deliveries of
// messages of the same type, each sent by the handler of the previous
// one (its causal link). The chain's last receiver is the causal sink. A
// sink move sends the external message straight to the sink, at the
// position of the chain's last delivery (where the sink handled it), and
// leaves the chain's deliveries out. Both parts matter: sent to the sink
// at its old position (a plain retarget move, retarget.go), the message
// reaches the sink earlier than the detour did, and the sink's state at
// that point differs from the state the rest of the trace was built on.
//
// sinkStage runs the sink pass: the sink moves of the best trace, in
// order, each checked and followed by a descent (reorder.go); the first
// that ends smaller than the best trace replaces it, and the moves of the
// new best trace are tried, until none improves it.
func (m *minimizer) sinkStage(ctx context.Context) error {
	return m.reorderWith(ctx, func(base *record.Trace) []edit { return sinkEdits(base.Events) })
}

// sinkEdits lists the sink moves of events, in a fixed order: one for every
// external send whose message is forwarded to another actor, in trace
// order.
func sinkEdits(events []record.Event) []edit {
	var out []edit
	for i, e := range events {
		if e.Kind != record.Send || e.From != record.External {
			continue
		}
		d0, chain := forwardChain(events, i)
		if len(chain) == 0 {
			continue
		}
		if sink := events[chain[len(chain)-1]].To; sink != e.To {
			out = append(out, sinkMove(i, d0, chain, sink))
		}
	}
	return out
}

// forwardChain returns the delivery of the external message sent at i, and
// the deliveries of its forwarding chain: each the first later delivery of
// a message of the same type sent by the handler of the previous one (a
// timer aside). d0 is -1 when the message is never delivered.
func forwardChain(events []record.Event, i int) (d0 int, chain []int) {
	d0 = -1
	for k := i + 1; k < len(events); k++ {
		if f := events[k]; f.Kind == record.Deliver && f.From == record.External && f.Cause == i {
			d0 = k
			break
		}
	}
	if d0 < 0 {
		return -1, nil
	}
	typ := record.TypeName(events[i].Msg)
	for cur := d0; ; {
		next := -1
		for k := cur + 1; k < len(events); k++ {
			if f := events[k]; f.Kind == record.Deliver && f.Timer == "" && f.Cause == cur && record.TypeName(f.Msg) == typ {
				next = k
				break
			}
		}
		if next < 0 {
			return d0, chain
		}
		chain = append(chain, next)
		cur = next
	}
}

// sinkMove sends the external message of the send at i (delivered at d0)
// to sink instead, both moved to the position of the chain's last
// delivery, and leaves the chain's deliveries out; the deliveries from d0
// on are wildcards.
func sinkMove(i, d0 int, chain []int, sink record.ActorID) edit {
	return func(_ *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		last := chain[len(chain)-1]
		skip := map[int]bool{i: true, d0: true}
		for _, k := range chain {
			skip[k] = true
		}
		p := make(dpor.Plan, 0, len(bp))
		for k, st := range bp {
			if k == last {
				send, del := bp[i], bp[d0]
				send.Event.To, del.Event.To = sink, sink
				p = append(p, send, del)
			}
			if skip[k] {
				continue
			}
			if k > d0 && st.Event.Kind == record.Deliver {
				st.Wildcard = true
			}
			p = append(p, st)
		}
		return p
	}
}
