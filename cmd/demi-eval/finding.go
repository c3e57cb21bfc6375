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
// before any mode was measured on them: of the candidates, those that
// `demi fuzz --mode walk` with default flags found in none of seeds
// 1-1000. The candidates and the walk's hits in seeds 1-1000: raft with
// five members: raft-45 249, raft-46 338, raft-56 191, raft-58a 5,
// raft-58b 268, raft-42 530, raft-66 308; raft-58a with 7, 8 and 9
// members 2, 2 and 0; raft-45, raft-56 with 9: 57, 37; etcdraft with five:
// send-before-persist 160, skip-snapshot-persist 429,
// hardstate-before-entries 49, apply-before-commit 1000; paxos with nine:
// forget-accepted 211, accept-below-promise 398; three more textbook
// mistakes tried and dropped (a leader committing an earlier term's entry
// by counting replicas, Raft's Figure 8: 5 with four members, 38 with
// five, 33 with seven, 17 with nine; a vote without the log check: 762,
// 922, 577; a leader counting an entry as stored when sent: 1000); and
// the raft-hard switches: raft-vote-volatile 0 (four members) and 0
// (five), raft-log-volatile 0 and 0, raft-term-volatile 0 (four).
func hardCases() []eval.FindingCase {
	return []eval.FindingCase{
		{Name: "raft-vote-volatile", System: "raft-hard", Options: record.Options{raft.BugVoteVolatile: "true"}, Hard: true},
		{Name: "raft-log-volatile", System: "raft-hard", Options: record.Options{raft.BugLogVolatile: "true"}, Hard: true},
		{Name: "raft-term-volatile", System: "raft-hard", Options: record.Options{raft.BugTermVolatile: "true"}, Hard: true},
		{Name: "raft-58a (9 members)", System: "raft", Options: record.Options{raft.Bug58a: "true", raft.OptMembers: "9"}, Hard: true},
		{Name: "raft-vote-volatile (5 members)", System: "raft-hard", Options: record.Options{raft.BugVoteVolatile: "true", raft.OptMembers: "5"}, Hard: true},
		{Name: "raft-log-volatile (5 members)", System: "raft-hard", Options: record.Options{raft.BugLogVolatile: "true", raft.OptMembers: "5"}, Hard: true},
	}
}

// findingCurves are the configurations whose abstract-state coverage the
// study plots: Raft and Paxos, no bug (those of them cat knows).
func findingCurves(cat *record.Catalog) []eval.FindingCase {
	var out []eval.FindingCase
	for _, name := range []string{"raft", "paxos"} {
		if _, err := cat.Lookup(name); err == nil {
			out = append(out, eval.FindingCase{Name: name, System: name, Options: record.Options{}})
		}
	}
	return out
}
