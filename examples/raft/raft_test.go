package raft

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// TestCorrectRaftSurvivesFuzzing runs the correct Raft (no bug switch) under
// many seeds, with crash-restarts, kills and partitions, on both networks,
// and expects no violation. A larger sweep was run by hand (see
// docs/examples.md).
func TestCorrectRaftSurvivesFuzzing(t *testing.T) {
	faults := record.Options{OptRestartWeight: "5", OptKillWeight: "3", OptPartitionWeight: "5"}
	cases := []struct {
		name  string
		opts  record.Options
		runs  int
		steps int
	}{
		{"fifo, client commands only", record.Options{}, 50, 2000},
		{"fifo, with crashes and partitions", faults, 200, 2000},
		{"unordered, with crashes and partitions", with(faults, OptUnordered, "true"), 100, 2000},
		{"five members, with crashes and partitions", with(faults, OptMembers, "5"), 50, 2000},
	}
	if testing.Short() {
		for i := range cases {
			cases[i].runs /= 10
		}
	}
	sys := System()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			elected, committed := 0, 0
			for seed := 0; seed < tc.runs; seed++ {
				tr, err := record.Fuzz(context.Background(), sys, tc.opts, record.FuzzConfig{Seed: uint64(seed), MaxSteps: tc.steps})
				require.NoError(t, err)
				require.Nil(t, tr.Header.Violation, "seed %d: %v", seed, tr.Header.Violation)
				leader, commit := false, false
				for _, e := range tr.Events {
					if ae, ok := e.Msg.(AppendEntries); ok && e.Kind == record.Deliver {
						leader = true
						commit = commit || ae.LeaderCommit > 0
					}
				}
				if leader {
					elected++
				}
				if commit {
					committed++
				}
			}
			// The runs must exercise the protocol, not idle: leaders get
			// elected and entries get committed in most of them.
			assert.Greater(t, elected, tc.runs/2, "runs with a leader")
			assert.Greater(t, committed, tc.runs/4, "runs with a commit")
		})
	}
}

func with(o record.Options, k, v string) record.Options {
	out := record.Options{}
	for a, b := range o {
		out[a] = b
	}
	out[k] = v
	return out
}
