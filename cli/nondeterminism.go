package cli

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// nondeterminismCauses is what to look for when a run does not replay
// the same: demi controls the order of deliveries and the actors' random
// sources, nothing else.
const nondeterminismCauses = "the system is not deterministic: look in its handlers for iteration over a map " +
	"(Go randomizes its order; sort the keys), goroutines, clocks (time.Now, timers outside Context.SetTimer), " +
	"global or package-level state shared between runs, and randomness not from Context.Rand"

// explainNotReproduced adds to err (a trace that does not reproduce its
// violation) what an exact replay of t shows: the first event where the
// run left the trace, with the usual causes.
func explainNotReproduced(ctx context.Context, sys *record.System, t *record.Trace, err error) error {
	rep, rerr := replay.Run(ctx, sys, t)
	if rerr != nil || rep.Reproduced {
		return err
	}
	if rep.Divergence == nil {
		return err // the error names the violation reached instead
	}
	return fmt.Errorf("%w: exact replay %s; if the trace was written by this system unchanged, %s", err, rep.Divergence, nondeterminismCauses)
}

// checkReplays replays a trace a command is about to write (fuzz's find)
// and returns an error naming the first event where the replay left it,
// with the usual causes, when it does not reproduce its violation: such a
// trace would mislead every command that reads it.
func checkReplays(ctx context.Context, sys *record.System, t *record.Trace) error {
	rep, err := replay.Run(ctx, sys, t)
	if err != nil {
		return err
	}
	if rep.Reproduced {
		return nil
	}
	return fmt.Errorf("the violating run (seed %d) does not replay the same: %s; %s; nothing written",
		t.Header.Seed, rep.Why(), nondeterminismCauses)
}
