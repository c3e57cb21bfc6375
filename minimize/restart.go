package minimize

import (
	"math/rand/v2"
	"slices"

	"github.com/demi-project/demi/record"
)

// Restart moves (the last moves of the retarget stage, retarget.go, after
// the handover moves) escape
// a local minimum that needs a crash-restart the best trace does not
// have. Under FIFO a message is delivered only after every message sent
// before it on its link, so a member's last, needed message (a vote it is
// asked for, an answer it sends) often waits behind stale ones: appends of
// an old term, the rejections they caused, a vote refused. The removals
// keep all of them, and often a whole election that exists only to make a
// member reject them, because each is on the way to the needed message.
// A crash-restart of the member drops every message queued for it at
// once: what was on its way to it is never delivered and never answered.
//
// A restart move inserts a restart of one member at one position; the
// deliveries after it are wildcards, and the move is checked and followed
// by a descent like every other move (reorder.go), so it is kept only when
// the descent ends smaller than the best trace. On raft-58a fresh seed
// 1304 the move restarts raft-2 after the term-1 leader's second client
// command: the appends queued for it are dropped, and the descent and the
// moves after it remove the election raft-2 ran only to reject them
// (29 deliveries, E:13 → 22 deliveries, E:14).
//
// The moves are every member the trace starts, in the order of their
// starts, restarted at every position after its start, in trace order.
// They apply when restarts belong to the run's fault model: the input
// crash-restarts some member, or the system's fuzz generators
// (record.System.Externals) inject restarts under the trace's options
// (see restartsInjected): a fuzzed run that happened to draw no restart
// was still fuzzed under a model with them.

// restartEdits lists the restart moves of events, in a fixed order: every
// started actor, in the order of their starts, restarted at every position
// after its start.
func restartEdits(events []record.Event) []edit {
	var out []edit
	for _, a := range startedActors(events) {
		started := false
		for p := 1; p <= len(events); p++ {
			if e := events[p-1]; e.Kind == record.Start && e.Actor == a {
				started = true
			}
			if started {
				out = append(out, insertAt(record.RestartEvent(a), p))
			}
		}
	}
	return out
}

// restartable reports whether restart moves apply to the run of input
// (the trace the minimization started from, with its options): it
// crash-restarts some member, or the system's generators inject restarts.
func (m *minimizer) restartable() bool {
	if slices.ContainsFunc(m.dropped, func(e record.Event) bool { return e.Kind == record.Restart }) {
		return true
	}
	return restartsInjected(m.sys, m.opts, m.seed)
}

// restartDraws is how many times restartsInjected asks each generator
// for an event.
const restartDraws = 1024

// restartsInjected reports whether sys's fuzz generators inject
// crash-restarts under opts: each generator is asked restartDraws times
// for an event, with a fixed random source, in the state after the
// system's setup events (what a fuzz run starts from). A generator that
// weighs restarts at 1 in 31 (raft's restart-weight=1 beside its default
// client-weight of 30) makes one with near certainty; one that never
// makes any (restart-weight=0) makes none.
func restartsInjected(sys *record.System, opts record.Options, seed uint64) bool {
	if len(sys.Externals) == 0 {
		return false
	}
	sim, err := record.NewSim(sys, opts, seed)
	if err != nil {
		return false
	}
	if sys.Setup != nil {
		for _, e := range sys.Setup(opts) {
			if err := sim.Apply(e); err != nil {
				return false
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x72657374))
	for range restartDraws {
		for _, g := range sys.Externals {
			if e, ok := g.Make(rng, sim.View()); ok && e.Kind == record.Restart {
				return true
			}
		}
	}
	return false
}
