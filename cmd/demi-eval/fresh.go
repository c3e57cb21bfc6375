package main

import (
	"path/filepath"
	"slices"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/examples/etcdraft"
	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/spark"
	"github.com/demi-project/demi/record"
)

// freshCases returns the fresh-seed study's cases, restricted to bugs when
// given: the fuzz run of every raft bug's shipped trace (raft.ShippedFuzz),
// the fuzz search of every etcdraft and paxos bug's (etcdraft.ShippedFuzz,
// paxos.ShippedFuzz, from seed 1) and of every spark bug's
// (spark.ShippedFuzz). A spark search starts at seed 1 and keeps the first
// qualifying run, so its case starts at the seed of the shipped trace in
// traces (the study tries the seeds after it), or at the search's first
// seed when that trace cannot be read.
func freshCases(bugs []string, traces string) []eval.FreshCase {
	var out []eval.FreshCase
	add := func(bug, system string, opts record.Options, sc record.SearchConfig) {
		if len(bugs) == 0 || slices.Contains(bugs, bug) {
			out = append(out, eval.FreshCase{Bug: bug, System: system, Options: opts, Search: sc})
		}
	}
	for _, c := range raft.ShippedFuzz() {
		add(c.Bug, "raft", c.Options(), c.Config)
	}
	for _, c := range etcdraft.ShippedFuzz() {
		add(etcdraft.TraceName(c.Bug), "etcdraft", c.Options(), c.Config)
	}
	for _, c := range paxos.ShippedFuzz() {
		add(paxos.TraceName(c.Bug), "paxos", c.Options(), c.Config)
	}
	for _, c := range spark.ShippedFuzz() {
		sc := c.Config
		if t, _, err := record.ReadFile(filepath.Join(traces, c.Bug+".trace"), examples.Catalog()); err == nil {
			sc.Seed = t.Header.Seed
		}
		add(c.Bug, "spark", c.Options(), sc)
	}
	return out
}
