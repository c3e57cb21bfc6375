package record_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// TestModesAddNoCost: what a fuzz mode or virtual time adds to a trace
// (the header's fuzz field, the deliveries' times) is read by no replay
// and no minimization: a trace and the same trace without it replay the
// same and minimize with the very same work (steps per stage) to the
// very same events.
func TestModesAddNoCost(t *testing.T) {
	ctx := context.Background()
	type tcase struct {
		name string
		sys  *record.System
		opts record.Options
		mode record.Mode
	}
	cases := []tcase{
		{"rounds", raft.System(), record.Options{raft.Bug56: "true"}, record.Rounds},
		{"coverage", raft.System(), record.Options{raft.Bug42: "true"}, record.Coverage},
		{"swarm", raft.System(), record.Options{raft.Bug46: "true"}, record.Swarm},
		{"virtual-time", etcdraft.System(), timedOpts, record.Walk},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, runs, err := record.Search(ctx, c.sys, c.opts, record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 400}, Runs: 300, Mode: c.mode})
			require.NoError(t, err)
			require.NotNil(t, tr, "nothing found in %d runs", runs)
			plain := &record.Trace{Header: tr.Header, Events: make([]record.Event, len(tr.Events))}
			plain.Header.Fuzz, plain.Header.Note = nil, ""
			timed := false
			for i, e := range tr.Events {
				timed = timed || e.At != 0
				e.At = 0
				plain.Events[i] = e
			}
			assert.Equal(t, c.name == "virtual-time", timed)
			if c.mode != record.Walk {
				require.NotNil(t, tr.Header.Fuzz)
			}

			for _, x := range []*record.Trace{tr, plain} {
				r, err := replay.Run(ctx, c.sys, x)
				require.NoError(t, err)
				require.True(t, r.Reproduced)
			}
			cfg := minimize.Config{Steps: 40_000, Workers: 1}
			a, err := minimize.Run(ctx, c.sys, tr, cfg)
			require.NoError(t, err)
			b, err := minimize.Run(ctx, c.sys, plain, cfg)
			require.NoError(t, err)
			steps := func(r *minimize.Result) []int64 {
				var out []int64
				for _, s := range r.Stages {
					out = append(out, s.Steps)
				}
				return out
			}
			assert.Equal(t, steps(b), steps(a))
			assert.Equal(t, b.Trace.Events, a.Trace.Events)
		})
	}
}

// timedOpts is etcdraft with virtual time and a bug its walk finds in a
// few runs.
var timedOpts = record.Options{etcdraft.OptVirtualTime: "true", etcdraft.BugApplyBeforeCommit: "true"}
