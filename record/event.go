package record

import (
	"fmt"
	"strings"
)

// Kind is the kind of an event.
type Kind uint8

// The event kinds. Deliver is the only internal event; all others are
// external events.
const (
	Deliver        Kind = iota + 1 // deliver one pending message or fire one timer
	Start                          // start an actor
	Kill                           // fail-stop an actor
	Restart                        // crash-restart: volatile state lost, storage kept
	Send                           // an external message into the network
	Partition                      // cut the network between two sets of actors
	Heal                           // undo a partition between two sets of actors
	WaitQuiescence                 // marker: deliver until no message is pending
	WaitCondition                  // marker: deliver until a named condition holds
)

var kindNames = [...]string{"", "deliver", "start", "kill", "restart", "send", "partition", "heal", "wait-quiescence", "wait-condition"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// IsExternal reports whether k is an external event.
func (k Kind) IsExternal() bool { return k != Deliver }

// MsgID identifies a message within one run. IDs are assigned in send
// order, so the same schedule gives the same IDs.
type MsgID uint64

// Event is one step of a schedule. Which fields matter depends on Kind.
type Event struct {
	Kind Kind
	// Deliver: the message delivered; Send: the message injected.
	ID    MsgID
	From  ActorID
	To    ActorID
	Msg   Message
	Timer string // timer key, for timer deliveries
	// Cause is the index of the event that sent the delivered message
	// (its causal link), or -1.
	Cause int
	// Actor is the subject of Start, Kill and Restart.
	Actor ActorID
	// A and B are the two sides of a Partition or Heal.
	A, B []ActorID
	// Cond names the condition of a WaitCondition marker.
	Cond string
	// Limit bounds the deliveries a wait marker may take in a fuzz run.
	Limit int
	// At is the run's virtual time when a delivery happened, in a run
	// with a time model (time.go); 0 otherwise. A trace records it, and a
	// replay recomputes it: it decides nothing.
	At VirtualTime
}

// Convenience constructors for external events.

// StartEvent starts actor id.
func StartEvent(id ActorID) Event { return Event{Kind: Start, Actor: id, Cause: -1} }

// KillEvent fail-stops actor id.
func KillEvent(id ActorID) Event { return Event{Kind: Kill, Actor: id, Cause: -1} }

// RestartEvent crash-restarts actor id.
func RestartEvent(id ActorID) Event { return Event{Kind: Restart, Actor: id, Cause: -1} }

// SendEvent injects msg from outside the system, addressed to to.
func SendEvent(to ActorID, msg Message) Event {
	return Event{Kind: Send, From: External, To: to, Msg: msg, Cause: -1}
}

// PartitionEvent cuts every link between a member of a and a member of b.
func PartitionEvent(a, b []ActorID) Event { return Event{Kind: Partition, A: a, B: b, Cause: -1} }

// HealEvent restores the links cut by the matching partition.
func HealEvent(a, b []ActorID) Event { return Event{Kind: Heal, A: a, B: b, Cause: -1} }

// WaitQuiescenceEvent is a marker: deliver until nothing but timers is pending.
func WaitQuiescenceEvent(limit int) Event {
	return Event{Kind: WaitQuiescence, Limit: limit, Cause: -1}
}

// WaitConditionEvent is a marker: deliver until the named condition holds.
func WaitConditionEvent(cond string, limit int) Event {
	return Event{Kind: WaitCondition, Cond: cond, Limit: limit, Cause: -1}
}

// String renders the event on one line, escaped (see Escape).
func (e Event) String() string { return Escape(e.format()) }

func (e Event) format() string {
	switch e.Kind {
	case Deliver:
		if e.Timer != "" {
			return fmt.Sprintf("timer %s fires at %s: %s", e.Timer, e.To, FormatMessage(e.Msg))
		}
		return fmt.Sprintf("deliver #%d %s→%s %s", e.ID, e.From, e.To, FormatMessage(e.Msg))
	case Start, Kill, Restart:
		return fmt.Sprintf("%s %s", e.Kind, e.Actor)
	case Send:
		return fmt.Sprintf("send #%d ext→%s %s", e.ID, e.To, FormatMessage(e.Msg))
	case Partition, Heal:
		return fmt.Sprintf("%s %s | %s", e.Kind, joinIDs(e.A), joinIDs(e.B))
	case WaitQuiescence:
		return "wait for quiescence"
	case WaitCondition:
		return "wait until " + e.Cond
	}
	return e.Kind.String()
}

// FormatMessage renders a message as Type{fields}, as is: pass the result
// through Escape before printing it (Event.String does).
func FormatMessage(m Message) string {
	if s, ok := m.(fmt.Stringer); ok {
		return s.String()
	}
	s := fmt.Sprintf("%+v", m)
	return strings.TrimPrefix(TypeName(m), "*") + strings.TrimPrefix(s, "&")
}

func joinIDs(ids []ActorID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = string(id)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Shape is what tells two external events apart when their contents do
// not matter (two injections, two events to re-insert): kind, actor,
// receiver, message type and, for partitions, the sides.
type Shape struct {
	kind      Kind
	actor, to ActorID
	msg       string
	sides     string
}

// ShapeOf returns e's Shape.
func ShapeOf(e Event) Shape {
	k := Shape{kind: e.Kind, actor: e.Actor, to: e.To}
	if e.Msg != nil {
		k.msg = TypeName(e.Msg)
	}
	if e.Kind == Partition || e.Kind == Heal {
		for _, a := range e.A {
			k.sides += string(a) + ","
		}
		k.sides += "|"
		for _, b := range e.B {
			k.sides += string(b) + ","
		}
	}
	return k
}
