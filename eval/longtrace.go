package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The long-trace study answers "does demi minimize the traces users bring,
// a soak test or a long fuzz campaign of 100,000 deliveries, within its
// budget and memory, as well as it minimizes the shipped traces?": for
// every bug, `demi fuzz` with the long flags (LongCase.Search: the shipped
// run's options, ~1.5x the target length in steps, 2 externals per 100
// deliveries, the target length as minimum) searches seeds from 1 until a
// run breaks the shipped trace's invariant after at least the target
// length; that first trace is minimized with the study's budget, its wall
// time and peak memory measured, and the result is compared with what demi
// reaches from the bug's shipped trace (its shipped .min.trace). The seed
// is the first the procedure gives, never chosen.

// LongCase is how one bug's long trace is fuzzed: `demi fuzz` with these
// options and this search configuration (its Seed is the first tried).
type LongCase struct {
	Bug     string
	System  string
	Options record.Options
	Search  record.SearchConfig
}

// LongConfig configures the long-trace study.
type LongConfig struct {
	Cases []LongCase
	// Budget is each minimization's time budget (default 5m).
	Budget time.Duration
	// FuzzBudget bounds each bug's search for its long failing traces,
	// all N together (default 10m).
	FuzzBudget time.Duration
	// N is the number of long failing traces per bug: the first N seeds
	// the search gives (default 1).
	N int
	// CancelAfter, when positive, runs each minimization a second time
	// and cancels it after this long, as SIGTERM would, measuring how soon
	// it returns and whether its best-so-far trace replays.
	CancelAfter time.Duration
	// Replays is how many exact replays check each result (default 10).
	Replays int
	// Workers is minimize's -j (default: Config.Workers).
	Workers int
}

func (l *LongConfig) withDefaults(workers int) LongConfig {
	out := *l
	if out.Budget <= 0 {
		out.Budget = 5 * time.Minute
	}
	if out.FuzzBudget <= 0 {
		out.FuzzBudget = 10 * time.Minute
	}
	if out.Replays <= 0 {
		out.Replays = 10
	}
	if out.N <= 0 {
		out.N = 1
	}
	if out.Workers <= 0 {
		out.Workers = workers
	}
	return out
}

// LongRow is the long-trace study of one bug.
type LongRow struct {
	Bug      string `json:"bug"`
	FuzzArgs string `json:"fuzz_args"`
	// Seed is the first seed (from Search.Seed, or after the bug's previous
	// row's seed) whose run broke the shipped invariant after the minimum
	// of deliveries; SeedsTried counts the runs from there, FuzzSeconds
	// their time.
	Seed        uint64  `json:"seed"`
	SeedsTried  int     `json:"seeds_tried"`
	FuzzSeconds float64 `json:"fuzz_seconds"`
	Fingerprint string  `json:"fingerprint"`
	Input       Size    `json:"input"`
	Result      Size    `json:"result"`
	// Shipped is the size of the bug's shipped .min.trace, what demi
	// reaches from the shipped trace; Ratio is Result over it (deliveries
	// plus externals).
	Shipped Size    `json:"shipped"`
	Ratio   float64 `json:"ratio"`
	// Seconds is the minimization's wall time (minimize.Run, after the
	// trace is in memory), Budget its budget; Schedules its checks.
	Seconds   float64 `json:"seconds"`
	Schedules int64   `json:"schedules"`
	// PeakMiB is the peak memory the Go runtime held from the OS during the
	// minimization (runtime/metrics: all memory classes minus the heap
	// released to the OS, sampled every 20 ms, under the GOGC of demi
	// minimize), the input trace included; an approximation of peak RSS.
	PeakMiB float64 `json:"peak_mib"`
	// Replayed counts the exact replays (of Replays) that reproduced the
	// violation.
	Replayed int `json:"replayed"`
	Replays  int `json:"replays"`
	// Cancel is the run cancelled after LongConfig.CancelAfter, if any.
	Cancel *LongCancel `json:"cancel,omitempty"`
	Err    string      `json:"error,omitempty"`
}

// LongCancel is a minimization cancelled after After seconds: it returned
// Latency seconds later with a best-so-far trace of size Result that
// replayed (or it finished before the cancellation: Finished).
type LongCancel struct {
	After    float64 `json:"after"`
	Finished bool    `json:"finished"`
	Latency  float64 `json:"latency"`
	Result   Size    `json:"result"`
	Replayed bool    `json:"replayed"`
}

// LongTraces runs the long-trace study, calling update after each bug.
func (c *Config) LongTraces(ctx context.Context, lc LongConfig, update func(LongRow) error) ([]LongRow, error) {
	l := lc.withDefaults(c.Workers)
	var rows []LongRow
	for _, lcase := range l.Cases {
		// The bug's N searches share its fuzz budget; each goes on from
		// the seed after the previous one's.
		fctx, cancel := context.WithTimeout(ctx, l.FuzzBudget)
		next := lcase.Search.Seed
		for k := 0; k < l.N; k++ {
			if err := ctx.Err(); err != nil {
				cancel()
				return rows, err
			}
			row, err := c.longBug(ctx, fctx, l, lcase, next)
			if err != nil {
				if ctx.Err() != nil {
					cancel()
					return rows, ctx.Err()
				}
				row.Bug, row.Err = lcase.Bug, err.Error()
				c.Log("long %s: %v", lcase.Bug, err)
			}
			rows = append(rows, row)
			if update != nil {
				if err := update(row); err != nil {
					cancel()
					return rows, err
				}
			}
			if row.Input.Deliveries == 0 {
				break // no long failing run within the fuzz budget
			}
			next = row.Seed + 1
		}
		cancel()
	}
	return rows, nil
}

// longBug fuzzes lc from seed first, within fctx, and minimizes the first
// long failing trace (see LongTraces).
func (c *Config) longBug(ctx, fctx context.Context, l LongConfig, lc LongCase, first uint64) (LongRow, error) {
	row := LongRow{Bug: lc.Bug, FuzzArgs: fuzzArgs(FreshCase(lc)), Replays: l.Replays}
	sys, members, invariant, err := c.shippedInvariant(FreshCase(lc))
	if err != nil {
		return row, err
	}
	minTrace, _, err := record.ReadFile(filepath.Join(c.TraceDir, lc.Bug+".min.trace"), c.Catalog)
	if err != nil {
		return row, err
	}
	row.Shipped = sizeOf(minTrace)

	// The first seed from lc.Search.Seed whose run breaks the invariant
	// after the minimum of deliveries.
	if fctx.Err() != nil && ctx.Err() == nil {
		return row, fmt.Errorf("the fuzz budget of %s was spent on the bug's earlier traces", l.FuzzBudget)
	}
	t0 := time.Now()
	var t *record.Trace
	for next := first; t == nil; {
		sc := lc.Search
		sc.Seed, sc.Runs = next, 1<<30
		c.Log("long %s: fuzzing from seed %d (%s)", lc.Bug, next, row.FuzzArgs)
		tr, runs, err := record.Search(fctx, sys, lc.Options, sc)
		row.SeedsTried += runs
		row.FuzzSeconds = time.Since(t0).Seconds()
		if ctx.Err() != nil {
			return row, ctx.Err()
		}
		if err != nil || tr == nil {
			return row, fmt.Errorf("no run broke %s after %d deliveries in %d seeds from %d (%.0f s)",
				invariant, lc.Search.MinDeliveries, row.SeedsTried, first, row.FuzzSeconds)
		}
		next = tr.Header.Seed + 1
		if Invariant(tr.Header.Violation.Fingerprint, members) == invariant {
			t = tr
		}
	}
	row.Seed, row.Fingerprint, row.Input = t.Header.Seed, t.Header.Violation.Fingerprint, sizeOf(t)
	c.Log("long %s: seed %d, %s, %s after %.0f s of fuzzing: minimizing (budget %s, -j %d)",
		lc.Bug, row.Seed, row.Input, row.Fingerprint, row.FuzzSeconds, l.Budget, l.Workers)

	cfg := minimize.Config{Budget: l.Budget, Strategy: "tfb", Workers: l.Workers}
	var res *minimize.Result
	row.PeakMiB, err = peakMemory(t.Header.Deliveries, func() error {
		start := time.Now()
		var err error
		res, err = minimize.Run(ctx, sys, t, cfg)
		row.Seconds = time.Since(start).Seconds()
		return err
	})
	if err != nil {
		return row, fmt.Errorf("minimize: %w", err)
	}
	if res.Interrupted {
		return row, context.Canceled
	}
	for _, s := range res.Stages {
		row.Schedules += s.Schedules
	}
	row.Result = sizeOf(res.Trace)
	row.Ratio = float64(row.Result.total()) / float64(max(row.Shipped.total(), 1))
	reps, err := replay.Repeat(ctx, sys, res.Trace, l.Replays)
	if err != nil {
		return row, fmt.Errorf("replaying the result: %w", err)
	}
	for _, r := range reps {
		if r.Reproduced {
			row.Replayed++
		}
	}
	c.Log("long %s: %s in %.1f s (%d schedules), peak %.0f MiB, %.2fx the shipped trace's %s, replayed %d/%d",
		lc.Bug, row.Result, row.Seconds, row.Schedules, row.PeakMiB, row.Ratio, row.Shipped, row.Replayed, row.Replays)

	if l.CancelAfter > 0 {
		if row.Cancel, err = c.longCancel(ctx, sys, t, cfg, l.CancelAfter); err != nil {
			return row, err
		}
	}
	return row, nil
}

// longCancel minimizes t again and cancels it after after.
func (c *Config) longCancel(ctx context.Context, sys *record.System, t *record.Trace, cfg minimize.Config, after time.Duration) (*LongCancel, error) {
	out := &LongCancel{After: after.Seconds()}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var at time.Time
	timer := time.AfterFunc(after, func() {
		mu.Lock()
		at = time.Now()
		mu.Unlock()
		cancel()
	})
	res, err := minimize.Run(cctx, sys, t, cfg)
	returned := time.Now()
	timer.Stop()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	mu.Lock()
	cancelled := at
	mu.Unlock()
	if cancelled.IsZero() {
		out.Finished = true
		if err != nil {
			return nil, fmt.Errorf("minimize: %w", err)
		}
		return out, nil
	}
	out.Latency = returned.Sub(cancelled).Seconds()
	if err != nil {
		// Cancelled before any window reproduced and before the input's
		// replay ended: there is no best-so-far trace to write.
		if errors.Is(err, context.Canceled) {
			c.Log("long: cancelled after %s, returned %.2f s later with nothing (%v)", after, out.Latency, err)
			return out, nil
		}
		return nil, fmt.Errorf("minimize (cancelled): %w", err)
	}
	out.Result = sizeOf(res.Trace)
	rep, err := replay.Run(ctx, sys, res.Trace)
	if err != nil {
		return nil, fmt.Errorf("replaying the cancelled run's trace: %w", err)
	}
	out.Replayed = rep.Reproduced
	c.Log("long: cancelled after %s, returned %.2f s later with %s (replays: %v)", after, out.Latency, out.Result, out.Replayed)
	return out, nil
}

// peakMemory runs f under demi minimize's collector setting for a trace of
// deliveries and returns the peak of the memory the Go runtime held from
// the OS meanwhile, in MiB (see LongRow.PeakMiB). It collects garbage first, so that what an
// earlier step left behind does not count.
func peakMemory(deliveries int, f func() error) (float64, error) {
	defer cliCollector(deliveries)()
	runtime.GC()
	debug.FreeOSMemory()
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	read := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() - samples[1].Value.Uint64()
	}
	peak := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	err := f()
	close(done)
	wg.Wait()
	peak = max(peak, read())
	return float64(peak) / (1 << 20), err
}

// longStudy runs the long-trace study into rep, calling update after each
// bug.
func (c *Config) longStudy(ctx context.Context, rep *Report, update func() error) error {
	l := c.Long.withDefaults(c.Workers)
	rep.Long = nil
	rep.LongGenerated = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	rep.LongBudget, rep.LongWorkers = l.Budget.String(), l.Workers
	_, err := c.LongTraces(ctx, l, func(r LongRow) error {
		rep.Long = append(rep.Long, r)
		return update()
	})
	return err
}
