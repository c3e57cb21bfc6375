package optimal

import (
	"context"
	"sync"
)

// Ahead runs a list of searches ahead, several at a time, for a caller that
// takes their results one after the other and gives each the steps it has
// left when its turn comes (as minimize's search passes do). A search with
// one walker is deterministic and stops at its first step with
// Config.MaxSteps spent, so one that stopped below the steps it is given
// at its turn is the search a sequential caller makes, and one that went
// past them is run again with them: the results do not depend on how many
// run at a time.
type Ahead struct {
	maxSteps int
	search   func(ctx context.Context, k, maxSteps int) (*Result, error)
	out      []chan ahead
	window   chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type ahead struct {
	res *Result
	err error
}

// RunAhead starts search(k, maxSteps) for k = 0..n-1 in order, at most
// workers at a time and at most twice as many whose results were not taken
// yet (a search run ahead is wasted when the caller stops before it);
// search must use one walker (Config.Workers 1) and MaxSteps maxSteps.
// Call Stop when done with the results.
func RunAhead(ctx context.Context, n, workers, maxSteps int, search func(ctx context.Context, k, maxSteps int) (*Result, error)) *Ahead {
	ctx, cancel := context.WithCancel(ctx)
	workers = max(workers, 1)
	a := &Ahead{maxSteps: maxSteps, search: search, out: make([]chan ahead, n), window: make(chan struct{}, 2*workers), ctx: ctx, cancel: cancel}
	for k := range a.out {
		a.out[k] = make(chan ahead, 1)
	}
	sem := make(chan struct{}, workers)
	a.wg.Go(func() {
		for k := range n {
			for _, c := range []chan struct{}{a.window, sem} {
				select {
				case c <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			a.wg.Go(func() {
				res, err := search(ctx, k, maxSteps)
				a.out[k] <- ahead{res, err}
				<-sem
			})
		}
	})
	return a
}

// Result waits for search k and returns what it gives with maxSteps (at
// most RunAhead's): its result when it stopped below them, else a run
// again with maxSteps. It returns the context's error once Stop was
// called or the context ended.
func (a *Ahead) Result(k, maxSteps int) (*Result, error) {
	if err := a.ctx.Err(); err != nil {
		return nil, err
	}
	var r ahead
	select {
	case r = <-a.out[k]:
		<-a.window
	case <-a.ctx.Done():
		return nil, a.ctx.Err()
	}
	if r.err == nil && maxSteps < a.maxSteps && r.res.Steps >= maxSteps {
		return a.search(a.ctx, k, maxSteps)
	}
	return r.res, r.err
}

// Stop cancels the searches still running and waits for them.
func (a *Ahead) Stop() {
	a.cancel()
	a.wg.Wait()
}
