package cli

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
)

// buildRounds lays a trace out in rounds; when that takes longer than
// after (0: at once), it prints a progress line on w every second (events laid out so
// far, of how many, and the time elapsed) and a last one when done.
func buildRounds(ctx context.Context, w io.Writer, sys *record.System, t *record.Trace, after time.Duration) (*rounds.Layout, error) {
	var done atomic.Int64
	stop := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		if after > 0 {
			timer := time.NewTimer(after)
			defer timer.Stop()
			select {
			case <-stop:
				return
			case <-timer.C:
			}
		}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			fmt.Fprintf(w, "show --rounds: %d of %d events laid out, %.1fs elapsed\n", done.Load(), len(t.Events), time.Since(start).Seconds())
			select {
			case <-stop:
				fmt.Fprintf(w, "show --rounds: %d events laid out in %.1fs\n", done.Load(), time.Since(start).Seconds())
				return
			case <-tick.C:
			}
		}
	}()
	lay, err := rounds.BuildProgress(ctx, sys, t, func(step int) { done.Store(int64(step) + 1) })
	close(stop)
	<-finished
	return lay, err
}
