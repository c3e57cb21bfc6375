package main

import (
	"slices"

	"github.com/demi-project/demi/eval"
	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
)

// findingCases returns the time-to-bug study's cases: every example bug
// of the catalog (each system's bug switches but raft's hard-bug
// switches), then the hard-bug set. With bugs given, only those (by case
// name).
func findingCases(cat *record.Catalog, bugs []string) []eval.FindingCase {
	var out []eval.FindingCase
	for _, sys := range cat.Systems() {
		for _, b := range sys.Bugs() {
			if sys.Name == "raft-hard" {
				break // the hard-bug set below
			}
			out = append(out, eval.FindingCase{Name: caseName(sys.Name, b), System: sys.Name, Options: record.Options{b: "true"}})
		}
	}
	for _, c := range hardCases() {
		if _, err := cat.Lookup(c.System); err == nil {
			out = append(out, c)
		}
	}
	if len(bugs) == 0 {
		return out
	}
	var kept []eval.FindingCase
	for _, c := range out {
		if slices.Contains(bugs, c.Name) {
			kept = append(kept, c)
		}
	}
	return kept
}

// caseName names an example bug as the evaluation does: the bug switch,
// prefixed with the system's name unless the switch already starts with
// it (raft-45, paxos-forget-accepted).
func caseName(system, bug string) string {
	if len(bug) > len(system) && bug[:len(system)+1] == system+"-" {
		return bug
	}
	return system + "-" + bug
}

// hardCases is the hard-bug set, chosen by the random walk's rate alone
// before any mode was measured on them: of the candidates (each raft and
// etcdraft bug with five members, raft-58a, -45, -56 and raft-fig8 with
// seven or nine, paxos' two with nine, and the textbook mistakes of
// raft.HardBugNames with four), those that `demi fuzz --mode walk` with
// default flags found in none of seeds 1-1000 (docs/evaluation-notes.md
// lists every candidate's rate).
func hardCases() []eval.FindingCase {
	return []eval.FindingCase{
		{Name: "raft-vote-volatile", System: "raft-hard", Options: record.Options{raft.BugVoteVolatile: "true"}, Hard: true},
		{Name: "raft-log-volatile", System: "raft-hard", Options: record.Options{raft.BugLogVolatile: "true"}, Hard: true},
		{Name: "raft-term-volatile", System: "raft-hard", Options: record.Options{raft.BugTermVolatile: "true"}, Hard: true},
		{Name: "raft-58a (9 members)", System: "raft", Options: record.Options{raft.Bug58a: "true", raft.OptMembers: "9"}, Hard: true},
	}
}

// findingCurves are the configurations whose abstract-state coverage the
// study plots: Raft and etcd's raft, no bug (those of them cat knows).
func findingCurves(cat *record.Catalog) []eval.FindingCase {
	var out []eval.FindingCase
	for _, name := range []string{"raft", "etcdraft"} {
		if _, err := cat.Lookup(name); err == nil {
			out = append(out, eval.FindingCase{Name: name, System: name, Options: record.Options{}})
		}
	}
	return out
}
