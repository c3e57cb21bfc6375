package record

import (
	"bytes"
	"reflect"
)

// A Matcher is a loose matching rule: it picks the pending message that
// delivery step want of a schedule stands for, when the run being driven is
// not the recorded one (message IDs and some contents differ once a
// schedule is modified). It returns the message's ID, or false when no
// pending message matches (the step is then skipped). step is want's index
// in the schedule, for rules that keep per-step data (fingerprints).
//
// A Matcher should only return a message that is deliverable now (see
// Deliverable); the Driver reports a Divergence otherwise.
type Matcher func(sim *Sim, step int, want *Event) (MsgID, bool)

// MatchContent matches a delivery step to the first deliverable message
// with the same sender, receiver, timer key and contents (SameMessage),
// whatever its ID.
func MatchContent(sim *Sim, _ int, want *Event) (MsgID, bool) {
	return matchLink(sim, want, func(p *Pending) bool { return SameMessage(p.Msg, want.Msg) }, nil)
}

// MatchType matches a delivery step to a deliverable message with the same
// sender, receiver and timer key: one with the same contents if there is
// one, else the newest of the same message type.
func MatchType(sim *Sim, _ int, want *Event) (MsgID, bool) {
	name := TypeName(want.Msg)
	return matchLink(sim, want, func(p *Pending) bool { return SameMessage(p.Msg, want.Msg) },
		func(p *Pending) bool { return TypeName(p.Msg) == name })
}

// matchLink scans the deliverable messages from want's sender to its
// receiver (under FIFO only the head of the queue; timers always) and
// returns the first for which exact holds, else the newest for which near
// holds.
func matchLink(sim *Sim, want *Event, exact, near func(*Pending) bool) (MsgID, bool) {
	if !sim.runningAt(int32(sim.slotOf(want.To))) {
		return 0, false
	}
	head := sim.sem == FIFO && want.Timer == ""
	var best MsgID
	for i := range sim.pend {
		p := &sim.pend[i]
		if p.gone() || p.To != want.To || p.From != want.From || p.Timer != want.Timer {
			continue
		}
		if exact(p) {
			return p.ID, true
		}
		if near != nil && near(p) {
			best = p.ID
		}
		if head {
			break // the rest of the queue waits behind its head
		}
	}
	return best, best != 0
}

// SameMessage compares two messages by type and content: deeply equal
// values are the same, and otherwise (a message read back from a file may
// differ from the one the run produced in ways the encoding does not keep,
// such as a nil versus an empty slice) their canonical encodings decide.
func SameMessage(a, b Message) bool {
	if TypeName(a) != TypeName(b) {
		return false
	}
	if reflect.DeepEqual(a, b) {
		return true
	}
	ea, err1 := EncodeMessage(a)
	eb, err2 := EncodeMessage(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}
