// Package record is demi's deterministic actor runtime: it runs a distributed
// system written as actors, one message at a time, under a schedule that the
// runtime (not the Go scheduler, not the clock, not map iteration) decides.
//
// A system is a set of actors. An actor handles one message at a time through
// Receive; through its Context it sends messages, sets and cancels timers (a
// timer is a message to itself that the scheduler decides when to fire), draws
// from a seeded random source, and reads and writes stable storage that
// survives a crash-restart. Nothing in an actor may start a goroutine, read
// the clock or do I/O: everything that could make two runs differ is owned by
// the runtime, so that a schedule replays the same way every time.
//
// A System describes how to build the actors, the invariant over their
// states, the external events a fuzz run may inject, the network semantics
// and the message types, which are registered so that traces can store them.
//
// Events come in two kinds. An internal event is a delivery: one pending
// message (or timer) handed to its receiver. External events come from
// outside the system: start, kill (fail-stop), crash-restart, an external
// message send, a partition or a heal between two sets of actors, and the
// wait-for-quiescence and wait-until-condition markers.
//
// A Sim executes events one by one and records them as a Trace: the events
// in order, each with its message payload, its message ID and the index of
// the event that sent it (its causal link). Fuzz drives a Sim with random
// externals and random deliveries until the invariant breaks; the trace it
// returns can be written to a file (see docs/trace-format.md), replayed
// exactly (package replay) and minimized (package minimize).
package record
