// Package optimal finds, by exhaustive search, the smallest schedule that
// reproduces a trace's violation: the ground truth the minimizer's results
// are measured against (the "Optimal" column of the DEMi paper's Table 1).
//
// # What is searched
//
// A schedule is a sequence of deliveries and external events. By default
// the search keeps the trace's external events, applied in their order, and
// chooses how deliveries are interleaved among them; its cost is the
// number of deliveries. With Config.Subsets it also chooses which external
// events happen (each, in order, applied or left out) and its cost is
// deliveries plus external events: the optimum over every subsequence of
// the input's external events and every schedule of them (other external
// events, such as a different bootstrap configuration, are outside it).
// The violation must be the input's (record.Violation.Same).
//
// # How
//
// An iterative deepening depth-first search on cost: with a bound of B, a
// depth-first walk tries every schedule of cost at most B; B grows by one
// until a schedule reproduces the violation, so the first found is the
// cheapest, and a search stopped early has proved a lower bound (nothing of
// cost up to the last bound it finished reproduces the violation).
//
// The walk never replays a schedule: it forks the run of a state
// (record.Sim.Fork, which copies an actor only when it next runs) and takes
// one step in the fork, so a step costs one handler call plus hashing. The
// result is rebuilt from its decisions through a record.Driver and verified
// by exact replay.
//
// A state is identified by a hash of what the run is, not of how it got
// there: every actor's state (its value, walked field by field by
// reflection as message fingerprints are, its stable storage, incarnation
// and random source), whether it is running, the cut links, the pending
// messages (per link, in send order) and the next external event. A table
// remembers, for every state met, the largest budget it was expanded with,
// so schedules that reach the same global state (two orders of commuting
// deliveries, a vote that changes nothing) are expanded once per bound.
//
// Reductions cut the steps taken, all sound (TestReductionsChangeNoAnswer
// compares the answers with each one off):
//
//   - Commutation: deliveries to different actors commute, so the state a
//     schedule reaches is a function of every actor's local history (what
//     it received, in order, and how many external events came before
//     each). A second table keyed by that history filters a step before it
//     is taken: each order of commuting deliveries costs one hash, not a
//     fork and a handler call. (This is what sleep sets achieve in a
//     stateless search; here the state table makes it one lookup.)
//   - Eager external messages: an external Send only adds a message to a
//     link from outside, so it commutes with every delivery; it is applied
//     as soon as it is the next external event, never after deliveries
//     that could have come later.
//   - Eager choices (Subsets): leaving an external event out changes
//     nothing but which event comes next, so whether it happens is decided
//     as soon as it is the next external event.
//   - Dominance (unordered networks): a delivery that changes nothing (its
//     receiver's state stays, nothing is sent or cancelled) leads to its
//     parent's state minus one pending message, which the parent reaches
//     a violation from as cheaply, one delivery sooner: it is never
//     expanded (dominance.go).
//   - The system's lower bound (IDA*): a system may supply an admissible
//     bound on what any continuation of a state still spends to reach the
//     violation (record.System.LowerBound: deliveries, plus external events
//     with Subsets); a state whose bound exceeds the budget left is not
//     expanded. Only schedules that cannot reproduce the violation within
//     the bound are cut, so the first reproducer found is still a cheapest
//     one, provided the bound never overestimates: that is the system's
//     promise, which the search cannot check. The bound is a function of
//     the state (the actors, the messages in flight and the external
//     events to come), so the tables stay exact. Config.NoLowerBound turns
//     it off and Result.LowerBound says whether it was used
//     (TestLowerBoundChangesNoAnswer compares the answers).
//   - Leaves: the last step of a schedule is only checked, and a
//     delivery's effect on its receiver and the invariant's verdict on the
//     actors' states are remembered, so most last steps and idle
//     deliveries cost lookups, not handler calls (leaf.go).
//
// Commutation, dominance and the tables assume that a state is the
// actors' states and the messages in flight. An actor that reads the
// event clock (record.Context.EventIndex) stamps its state with the
// interleaving, and an invariant that reads the network
// (record.View.NumInFlight) sees the messages in flight: when the run
// reports either (record.Sim.Observed), the search starts again without
// them (Result.Plain) and with the number of events in the state key.
//
// The hash of an actor's value is only as good as its fields: an actor
// whose behaviour depends on something reflection cannot see (a function
// value, a channel, state outside the actor) must not be searched. Memory
// is bounded by Config.MaxStates: the state table stops the search there;
// the history table and the memo, only filters, are emptied when they
// reach their caps (each table costs some tens of bytes per entry).
//
// # From a prefix
//
// SearchFrom keeps a trace's first events as they are and searches only
// the schedules after them, from the state they reach (the root of every
// walk runs the prefix once); its cost counts only the events after the
// cut. The minimizer's insert and shrink-search passes use it to search the
// schedules near its best trace (minimize/shrinksearch.go), insert with
// Config.Insert (one external event the trace lacks, applied at any step)
// and Config.Last (the last step like the trace's). Forks reports whether
// a trace's runs can be searched at all: every actor must be copyable.
//
// # Parallel
//
// With Config.Workers above one, each bound from the tenth is walked by
// that many walkers sharing the state table: one walker queues the states
// eight steps below the bound, in its order, and the others walk them.
// What a bound proves does not depend on the number of walkers; which
// reproducer is met first does, so a bound that finds one is walked again
// by one walker with empty tables, and its first reproducer is the answer.
package optimal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/demi-project/demi/record"
)

// Config bounds a search.
type Config struct {
	// MaxDeliveries is the largest number of deliveries a schedule may have
	// (required, at least 0).
	MaxDeliveries int
	// MaxStates bounds the distinct states known to the search (default
	// 5,000,000), so memory stays bounded; the search reports
	// Exhausted=false when it stops there.
	MaxStates int
	// MaxSteps, when above 0, bounds the steps (Result.Steps) of each
	// walker: the search stops there as at MaxStates.
	MaxSteps int
	// Progress, when set, is called after each bound the search finished.
	Progress func(Progress)
	// Subsets also chooses which external events happen; the cost is
	// deliveries plus external events.
	Subsets bool
	// Workers is the number of walkers of a bound (default 1, at most 4
	// per CPU): the answer does not depend on it (see run in search.go).
	Workers int
	// Proofs, when set, answers a Subsets Search that an earlier
	// exhausted one covers, and remembers this one if it exhausts its
	// bound without a reproducer (see Proofs).
	Proofs *Proofs
	// TotalBound, with Subsets, bounds the cost (deliveries plus external
	// events) instead of MaxDeliveries plus every external event.
	TotalBound int
	// NoLowerBound ignores the system's lower bound (record.System.
	// LowerBound): the search then prunes on its own reductions only.
	// The answer is the same either way (the bound is admissible); the
	// option makes that comparison reproducible.
	NoLowerBound bool
	// Insert, with Subsets, lists external events besides the trace's
	// that a schedule may apply once, at any step, at most one of them,
	// at a cost of one: a route that needs an event the trace lacks (a
	// second restart that drops what was queued).
	Insert []record.Event
	// Last, with Subsets, makes the search goal-directed: a step that
	// spends the last of a bound is like it (a delivery to the same actor
	// of a message of the same type and timer; an external event of the
	// same kind, actor, receiver and message type), so most last steps are
	// never taken. The answer may then cost more than the optimum.
	Last *record.Event
	// Foresee stops the search at the end of a bound, as at MaxStates but
	// sooner, when the states (or, with one walker, the steps) of the
	// bounds left, each growing as the last two did (their geometric
	// mean), would pass MaxStates (MaxSteps) before the search finishes: a
	// search that cannot finish is not walked to its cap. It looks once
	// the count is a 64th of its cap (earlier bounds grow by factors the
	// lower bound and the first events distort).
	Foresee bool
	// Leap walks the largest bound next, skipping those between, once the
	// forecast of Foresee has what it needs and says the search finishes
	// within its caps: a proof that nothing within the bound reproduces
	// walks every bound again from the start, and where states grow
	// slowly from bound to bound those below the largest cost more than
	// it. A reproducer found after a leap is within the bound but may not
	// be the cheapest (Exhausted is then false).
	Leap bool

	// noCommute turns the commutation filter off and noDominance the
	// pruning of deliveries that change nothing (tests and benchmarks
	// measure what they save; a search whose actors read the event clock
	// or whose invariant reads the network turns them off itself).
	noCommute, noDominance, noMemo bool
	// plain: no commutation filter, no dominance, and the number of
	// events in the state key (see Search).
	plain bool
}

// Progress reports a bound the search finished.
type Progress struct {
	// Bound is the cost just covered: no schedule of that cost or less
	// reproduces the violation.
	Bound    int
	States   int           // distinct states known so far
	Expanded int           // expansions so far
	Elapsed  time.Duration // since the search started
}

// Result is the outcome of a search.
type Result struct {
	// Trace is the cheapest reproducing schedule found (verified by exact
	// replay), or nil when there is none within the bound.
	Trace *record.Trace
	// Deliveries and Externals are Trace's counts (0 when Trace is nil).
	Deliveries, Externals int
	// Exhausted reports that every schedule within the bound (or, when
	// Trace is set, cheaper than Trace) was covered, so the answer is
	// exact. False when the search stopped on MaxStates or the context.
	Exhausted bool
	// Searched is the largest cost fully covered (-1 for none): no
	// schedule of that cost or less reproduces the violation.
	Searched int
	// States is the number of distinct states met (a bound walked again
	// to pick the answer, see Config.Workers, counts its states again).
	States int
	// Expanded counts expansions: a state is expanded again by each
	// larger bound of the iterative deepening.
	Expanded int
	// Steps counts the events executed: one per successor that the
	// commutation filter lets through.
	Steps int
	// Seconds is the wall time of the search.
	Seconds float64
	// Plain reports that the search ran without its reductions (see
	// Search): an actor read the event clock or the invariant read the
	// network.
	Plain bool
	// LowerBound reports that the system's lower bound pruned the search
	// (record.System.LowerBound, not turned off by Config.NoLowerBound),
	// and BoundCuts counts the states it cut.
	LowerBound bool
	BoundCuts  int
}

// ExpandedPerSecond is the search's speed.
func (r *Result) ExpandedPerSecond() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Expanded) / r.Seconds
}

// Search looks for the cheapest schedule with t's external events (in
// order; with Subsets, any subsequence of them) that reproduces t's
// violation.
func Search(ctx context.Context, sys *record.System, t *record.Trace, cfg Config) (*Result, error) {
	return searchAfter(ctx, sys, t, 0, false, cfg)
}

// searchAfter is Search and SearchFrom (from): it keeps t's first cut
// events and searches the schedules after them.
func searchAfter(ctx context.Context, sys *record.System, t *record.Trace, cut int, from bool, cfg Config) (*Result, error) {
	if t.Header.Violation == nil {
		return nil, errors.New("optimal: the trace records no violation")
	}
	if cut < 0 || cut > len(t.Events) {
		return nil, fmt.Errorf("optimal: cut %d is outside the trace's %d events", cut, len(t.Events))
	}
	if cfg.MaxDeliveries < 0 {
		return nil, fmt.Errorf("optimal: max deliveries %d is negative", cfg.MaxDeliveries)
	}
	if (len(cfg.Insert) > 0 || cfg.Last != nil) && !cfg.Subsets {
		return nil, errors.New("optimal: inserted external events and a last step need Subsets (every step costs one)")
	}
	if cfg.MaxStates <= 0 {
		cfg.MaxStates = 5_000_000
	}
	// Walkers beyond a few per core add memory, not speed (the answer
	// does not depend on their number).
	cfg.Workers = min(max(cfg.Workers, 1), 4*runtime.NumCPU())
	prefix := t.Events[:cut]
	var externals []record.Event
	for i, e := range t.Events[cut:] {
		if !e.Kind.IsExternal() {
			continue
		}
		if e.Kind == record.Send && e.Msg == nil {
			return nil, fmt.Errorf("optimal: event %d sends a nil message", cut+i)
		}
		externals = append(externals, e)
	}
	// Bounds already reported are not reported again by a plain search.
	last, progress := -1, cfg.Progress
	if progress != nil {
		cfg.Progress = func(p Progress) {
			if p.Bound > last {
				last = p.Bound
				progress(p)
			}
		}
	}
	start := func(cfg Config) (*search, error) {
		s, err := newSearch(ctx, sys, t, externals, cfg)
		if err != nil {
			return nil, err
		}
		s.prefix = prefix
		// The prune of states with more undelivered external messages
		// than budget left assumes every one could have been left out,
		// which a message sent in a prefix cannot (see SearchFrom).
		s.undelivered = s.undelivered && !from
		return s, nil
	}
	var proved proof
	if cfg.Proofs != nil && cfg.Subsets && !from && len(cfg.Insert) == 0 && cfg.Last == nil {
		proved.bound = cmp.Or(max(cfg.TotalBound, 0), cfg.MaxDeliveries+len(externals))
		proved.setup, proved.externals = proofKeys(t, externals) // nil externals: not remembered
		if steps, ok := cfg.Proofs.answer(proved.setup, proved.externals, proved.bound); ok && (cfg.MaxSteps == 0 || steps <= cfg.MaxSteps) {
			return &Result{Exhausted: true, Searched: proved.bound, Steps: steps}, nil
		}
	}
	s, err := start(cfg)
	if err != nil {
		return nil, err
	}
	res, err := s.run()
	if errors.Is(err, errObserved) {
		// The reductions assume that a state is the actors' states and
		// the messages in flight; start again without them.
		cfg.plain, cfg.noCommute, cfg.noDominance, cfg.noMemo = true, true, true, true
		if s, err = start(cfg); err != nil {
			return nil, err
		}
		res, err = s.run()
	}
	if err == nil && proved.externals != nil && res.Exhausted && res.Trace == nil {
		proved.steps = res.Steps
		cfg.Proofs.add(proved)
	}
	return res, err
}

// errObserved stops a search with reductions when an actor reads the event
// clock or a check reads the network (record.Sim.Observed).
var errObserved = errors.New("optimal: the run observed the event clock or the network")
