package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/demi-project/demi/internal/collector"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// cliCollector sets, for the process, the collector settings demi minimize
// runs a trace of the given deliveries under (package collector) and returns
// the function that puts the previous ones back. The studies run one
// minimization at a time, so the process-wide setting is theirs.
func cliCollector(deliveries int) (restore func()) {
	gogc, limit := debug.SetGCPercent(collector.Percent(deliveries)), debug.SetMemoryLimit(collector.MemoryLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gogc)
	}
}

// minimizeHere is minimize.Run in this process under demi minimize's
// collector settings, with the memory earlier work freed returned to the
// operating system first (until returned it counts against the limit). It
// returns the CPU time the process used meanwhile.
func minimizeHere(ctx context.Context, sys *record.System, t *record.Trace, cfg minimize.Config) (*minimize.Result, time.Duration, error) {
	debug.FreeOSMemory()
	defer cliCollector(t.Header.Deliveries)()
	cpu0 := cpuTime()
	res, err := minimize.Run(ctx, sys, t, cfg)
	return res, cpuTime() - cpu0, err
}

// ChildEnv names the environment variable that makes an executable a
// minimization child (Config.Isolate): its value is the request. A
// program that sets Config.Isolate must, when it is set, call
// ServeMinimize with a catalog that knows Config.Catalog's systems before
// anything else, and exit with its status.
const ChildEnv = "DEMI_EVAL_MINIMIZE"

// childRequest is what a minimization child minimizes: the trace in In,
// the result written to Out.
type childRequest struct {
	In, Out  string
	Budget   time.Duration
	Strategy string
	Workers  int
	Steps    int64
}

// childResponse is what a minimization child reports on its standard
// output: the result without its trace (in the request's Out).
type childResponse struct {
	Stages                 []minimize.StageStats
	Final                  minimize.StageStats
	Passes                 []minimize.PassStats
	Pace                   []minimize.PacePoint
	Interrupted, OutOfTime bool
	Optimal                bool // minimize.Result.Optimal
	CPU                    time.Duration
	Err                    string `json:",omitempty"`
}

// ServeMinimize runs the minimization request (ChildEnv's value) in this
// process and writes its report to stdout: the child side of
// Config.Isolate. It returns the exit status (2 for a malformed request).
func ServeMinimize(ctx context.Context, cat *record.Catalog, request string, stdout, stderr io.Writer) int {
	var req childRequest
	if err := json.Unmarshal([]byte(request), &req); err != nil {
		fmt.Fprintf(stderr, "demi-eval: %s: %v\n", ChildEnv, err)
		return 2
	}
	resp := serveMinimize(ctx, cat, req)
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintf(stderr, "demi-eval: %v\n", err)
		return 1
	}
	return 0
}

func serveMinimize(ctx context.Context, cat *record.Catalog, req childRequest) childResponse {
	t, sys, err := record.ReadFile(req.In, cat)
	if err != nil {
		return childResponse{Err: err.Error()}
	}
	res, cpu, err := minimizeHere(ctx, sys, t, minimize.Config{Budget: req.Budget, Strategy: req.Strategy, Workers: req.Workers, Steps: req.Steps})
	if err != nil {
		return childResponse{Err: err.Error(), CPU: cpu}
	}
	if err := res.Trace.WriteFile(req.Out); err != nil {
		return childResponse{Err: err.Error(), CPU: cpu}
	}
	return childResponse{Stages: res.Stages, Final: res.Final, Passes: res.Passes, Pace: res.Pace,
		Interrupted: res.Interrupted, OutOfTime: res.OutOfTime, Optimal: res.Optimal, CPU: cpu}
}

// runMinimize runs one minimization a study measures and returns its
// result and the CPU time it took. With Isolate it runs in a fresh process
// of this executable, as demi minimize would: no heap, collector pacing or
// memory limit shared with the exhaustive searches and the peer that ran
// before it in the evaluation. (That is not all that moves the seconds on
// a shared 2-core machine: etcdraft-hardstate-before-entries, the same
// run step for step, took 9.5 to 11.8 s in one hour, in a child process
// and in-process alike.) Without Isolate it runs in this process
// (minimizeHere).
func (c *Config) runMinimize(ctx context.Context, sys *record.System, t *record.Trace, cfg minimize.Config) (*minimize.Result, time.Duration, error) {
	if !c.Isolate {
		return minimizeHere(ctx, sys, t, cfg)
	}
	dir, err := os.MkdirTemp("", "demi-eval-minimize-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	req := childRequest{In: filepath.Join(dir, "in.trace"), Out: filepath.Join(dir, "out.trace"),
		Budget: cfg.Budget, Strategy: cfg.Strategy, Workers: cfg.Workers, Steps: cfg.Steps}
	if err := t.WriteFile(req.In); err != nil {
		return nil, 0, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, 0, fmt.Errorf("minimization child: %w", err)
	}
	js, err := json.Marshal(req)
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(js))
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // the child returns its best so far
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var resp childResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return nil, 0, fmt.Errorf("minimization child %s: %w (%v): %s", exe, errors.Join(runErr, err), ctx.Err(), strings.TrimSpace(stderr.String()))
	}
	if resp.Err != "" {
		return nil, resp.CPU, errors.New(resp.Err)
	}
	tr, _, err := record.ReadFile(req.Out, c.Catalog)
	if err != nil {
		return nil, resp.CPU, fmt.Errorf("minimization child's result: %w", err)
	}
	return &minimize.Result{Trace: tr, Stages: resp.Stages, Final: resp.Final, Passes: resp.Passes, Pace: resp.Pace,
		Interrupted: resp.Interrupted, OutOfTime: resp.OutOfTime, Optimal: resp.Optimal}, resp.CPU, nil
}
