package record

import (
	"math/rand/v2"
)

// ActorID names an actor. IDs are chosen by the System and must be unique.
type ActorID string

// External is the pseudo-sender of messages injected from outside the system.
const External ActorID = "ext"

// Message is any value of a type registered in System.Messages. Messages are
// values: a handler must not mutate a message after sending it.
type Message any

// Actor is one single-threaded process. Receive handles one message (or one
// timer firing) at a time and must be a deterministic function of the
// actor's state, the message and what it reads through ctx.
type Actor interface {
	Receive(ctx *Context, from ActorID, msg Message)
}

// Starter is implemented by actors that act when they start or restart
// (read stable storage, set their first timers).
type Starter interface {
	Start(ctx *Context)
}

// Snapshotter is implemented by actors that expose their state for display
// (demi show, step-through). The returned value should be a plain copy.
type Snapshotter interface {
	Snapshot() any
}

// DeepCopier is implemented by actors (and values kept in stable storage)
// that copy themselves faster than reflection does. DeepCopy must return a
// value of the same type, equal to the receiver field by field
// (reflect.DeepEqual), that shares no mutable memory with it: the run and
// its forks (Sim.Fork) then change either without the other seeing it.
// Without it, a value is copied field by field by reflection, unexported
// fields included; record.CheckDeepCopy tests an implementation against
// that copy.
type DeepCopier interface {
	DeepCopy() any
}

// Context is an actor's window on the runtime during Start and Receive. It
// is valid only for the duration of that call.
type Context struct {
	sim   *Sim
	self  ActorID
	slot  *slot
	event int
}

// Self returns the ID of the actor being run.
func (c *Context) Self() ActorID { return c.self }

// Send puts msg in the network from this actor to to. The runtime decides
// when (and, under a partition or a kill, whether) it is delivered.
func (c *Context) Send(to ActorID, msg Message) {
	c.sim.mustRegister(c.self, msg)
	c.sim.send(c.slot.index, c.self, to, msg, "", c.event, 0)
}

// SetTimer arms the timer named key: msg will be delivered to this actor at
// a moment the scheduler chooses. A pending timer with the same key is
// replaced. SetTimerAfter gives a timer a duration in virtual time.
func (c *Context) SetTimer(key string, msg Message) {
	c.sim.mustRegister(c.self, msg)
	c.sim.cancelTimer(c.slot.index, key)
	c.sim.send(c.slot.index, c.self, c.self, msg, key, c.event, untimed)
}

// CancelTimer disarms the timer named key, if it is pending.
func (c *Context) CancelTimer(key string) {
	c.sim.cancels++
	c.sim.cancelTimer(c.slot.index, key)
}

// Rand returns this actor's random source. It is seeded from the run's seed,
// the actor's ID and its incarnation, so it replays exactly.
func (c *Context) Rand() *rand.Rand { return c.slot.rand() }

// EventIndex returns the index, in the run's event log, of the event this
// handler runs for (the delivery, or the start). It is one clock for every
// actor of a run, deterministic like the run itself: a system can stamp
// ghost state with it, for example when a client's request arrived and
// when it was answered, for an invariant about real-time order such as
// linearizability.
func (c *Context) EventIndex() int {
	c.sim.readClock = true
	return c.event
}

// Storage returns this actor's stable storage: it survives a crash-restart
// (volatile state does not) and is lost only when the run ends.
func (c *Context) Storage() Storage { return c.slot.storage }
