// Package record is demi's deterministic actor runtime: it runs a distributed
// system written as actors, one message at a time, under a schedule that the
// runtime (not the Go scheduler, not the clock, not map iteration) decides,
// and records every run as a trace that replays exactly.
//
// # Writing a system
//
// An actor is a single-threaded process: a value with a Receive method that
// handles one message at a time.
//
//	type Node struct{ peer record.ActorID; count int }
//
//	func (n *Node) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
//		switch m := msg.(type) {
//		case Ping:
//			n.count++
//			ctx.Send(n.peer, Pong{N: m.N})
//		}
//	}
//
// Through its [Context] an actor sends messages ([Context.Send]), arms and
// cancels timers ([Context.SetTimer], [Context.CancelTimer]: a timer is a
// message to itself that the scheduler decides when to fire), draws random
// numbers ([Context.Rand], seeded from the run's seed, the actor and its
// incarnation) and reads and writes stable storage ([Context.Storage],
// which survives a crash-restart while the actor's fields do not). An actor
// may also implement [Starter] (act when it starts or restarts) and
// [Snapshotter] (show its state in demi show and the step-through replay).
// Nothing in an actor may start a goroutine, read the clock or do I/O:
// everything that could make two runs differ is owned by the runtime.
//
// A message is a plain value ([Message]) of a type registered in the
// system, so that traces can store it; a handler must not change a message
// after sending it. Message types may help minimization and display by
// implementing [Clocked], [ClockAdvancer], [Shrinkable] or [Rounded], and
// mark bootstrap messages that a replay must wait for with [Unignorable].
//
// A [System] ties it together: its Name, its Members (the actor IDs of a
// run) and New (a fresh actor, on start and crash-restart), the Messages it
// registers, named Options (cluster size, bug switches), the Invariant, the
// external events every fuzz run starts with (Setup) and those it may
// inject at random (Externals, one [Generator] each), and the network semantics
// ([FIFO], like TCP, by default; [Unordered], like UDP).
//
// # Invariants and violations
//
// The invariant is a function of a [View]: a read-only window on the
// actors of a run ([View.Actor], [View.Running], [View.StateOf]). It returns
// nil when the states are fine, or a [Violation] whose Fingerprint names the
// bug (the invariant and the actors involved, not the exact state): two
// violations are the same bug when [Violation.Same] says so. A panic in a
// handler is a violation too: it halts the run, fingerprinted by the panic's
// message and the function that panicked.
//
// A loss of progress breaks no invariant. A system states it as a
// bounded-liveness property ([Liveness]): after the last external fault,
// within N deliveries, a predicate holds. The runtime checks it after
// every delivery; a window that closes without progress is a violation
// fingerprinted "Liveness(NAME)", found, replayed and minimized like any
// other.
//
// # Running a system
//
// Events come in two kinds. A delivery hands one pending message (or timer)
// to its receiver. External events come from outside: [StartEvent],
// [KillEvent] (fail-stop), [RestartEvent] (crash-restart), [SendEvent] (an
// external message), [PartitionEvent], [HealEvent], and the wait markers.
//
// [Fuzz] runs a system at random until its invariant breaks; [Search] tries
// seed after seed. Either returns a [Trace]: the run's [Header] (system,
// options, seed, violation) and its events in order, each delivery with its
// message, its ID and the index of the event that sent it. Traces are
// written and read with [Trace.WriteFile], [ReadFile] and a [Catalog] of
// the systems a binary knows (see docs/trace-format.md).
//
// A [Sim] is one run, driven one event at a time: [Sim.Apply] an external
// event, list what may be delivered ([Sim.Enabled]), [Sim.Deliver] one,
// [Sim.Check] the invariant. A [Setup] (system, options, seed) builds it;
// the same Setup and the same events always give the same run.
//
// A schedule is a sequence of such decisions, written as events. A
// [Driver] takes a Sim through a schedule step by step with one set of
// rules (matching, divergence, invariant checks, cancellation; see
// [Driver]): it replays a trace exactly, follows a modified one loosely
// (a [Matcher] such as [MatchType]), steps backwards ([Driver.Back]) and
// takes decisions off the schedule ([Driver.Deliver], [Driver.Apply],
// [Driver.Drop]) to ask "what if".
//
// Package replay replays a trace file, package minimize shrinks a failing
// trace to a minimal causal sequence, and the demi command (package cli)
// runs all of it on the systems of a Catalog.
package record
