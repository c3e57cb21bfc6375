package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// maxShards bounds --shard's N: more shards than that is a typo.
const maxShards = 1 << 20

// modeNames lists the fuzz modes for the --mode flag's help.
func modeNames() string {
	var names []string
	for _, m := range record.Modes() {
		names = append(names, m.Name())
	}
	return strings.Join(names, ", ")
}

// applyShard reads --shard I/N (or N, with I from JOB_COMPLETION_INDEX,
// as a Kubernetes Indexed Job sets it) into cfg: the shard tries the seeds
// Seed+I, Seed+I+N, ..., so N shards of --runs R each try the R·N seeds a
// single run of --runs R·N tries.
func applyShard(f *pflag.FlagSet, shard string, cfg *record.SearchConfig) error {
	if !f.Changed("shard") {
		return nil
	}
	bad := func(format string, args ...any) error {
		return badInput(fmt.Errorf("--shard %s: %s", shard, fmt.Sprintf(format, args...)))
	}
	is, ns, ok := strings.Cut(shard, "/")
	if !ok {
		ns, is = shard, os.Getenv("JOB_COMPLETION_INDEX")
		if is == "" {
			return bad("want I/N, or N with JOB_COMPLETION_INDEX set (it is not)")
		}
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 || n > maxShards {
		return bad("the number of shards must be 1 to %d", maxShards)
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		if !ok {
			return bad("JOB_COMPLETION_INDEX=%q: want a shard index from 0 to %d", is, n-1)
		}
		return bad("the shard index must be 0 to %d", n-1)
	}
	if cfg.Seed > math.MaxUint64-uint64(i) {
		return bad("--seed %d + shard index overflows", cfg.Seed)
	}
	cfg.Seed += uint64(i)
	cfg.Stride = uint64(n)
	return nil
}

// fuzzCampaign is fuzz --dir: every kept failing run is written to dir as
// NAME-SEED.trace, until --runs seeds or --budget. A file that exists is
// left alone (the same seed of the same command writes the same trace).
func fuzzCampaign(cmd *cobra.Command, e *env, sys *record.System, given record.Options, cfg record.SearchConfig, budget time.Duration, dir string, bugs []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInput(fmt.Errorf("--dir %s: %v", dir, unwrapPath(err)))
	}
	if err := checkOutput("--dir", filepath.Join(dir, ".demi-check"), true); err != nil {
		return err
	}
	name := sys.Name
	if len(bugs) > 0 {
		name = strings.Join(bugs, "+")
	}
	prog := newFuzzProgress(e.stderr, budget)
	cfg.Progress = prog.update
	ctx, cancel := context.WithTimeout(cmd.Context(), budget)
	defer cancel()
	written, kept := 0, 0
	var werr error
	runs, err := record.SearchAll(ctx, sys, given, cfg, func(t *record.Trace) bool {
		kept++
		// As fuzz -o: a trace that does not replay the same is not written.
		if err := checkReplays(cmd.Context(), sys, t); err != nil {
			werr = notFound(err)
			return false
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.trace", name, t.Header.Seed))
		var buf strings.Builder
		if err := t.Encode(&buf); err != nil {
			werr = err
			return false
		}
		switch err := record.WriteFileNew(path, []byte(buf.String())); {
		case errors.Is(err, fs.ErrExist):
			prog.done()
			fmt.Fprintf(e.stderr, "fuzz: %s exists; left as it is\n", path)
		case err != nil:
			werr = err
			return false
		default:
			written++
		}
		return true
	})
	prog.done()
	if werr != nil {
		return werr
	}
	if cmd.Context().Err() != nil {
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted after %d run(s); %d failing run(s) written to %s", runs, written, dir)}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	limit := ""
	if err != nil {
		limit = fmt.Sprintf(" (--budget %s ran out)", budget)
	}
	first := cfg.Seed
	fmt.Fprintf(e.stdout, "%d failing run(s) of %d from seed %d (every %d), %d written to %s%s\n",
		kept, runs, first, max(cfg.Stride, 1), written, dir, limit)
	if kept == 0 {
		return notFound(errors.New("no violation found"))
	}
	return nil
}
