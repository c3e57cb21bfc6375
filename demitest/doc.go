// Package demitest runs demi inside `go test`: it fuzzes a system in a
// test, keeps the failing traces it finds (and their minimized versions)
// under testdata/demi/<TestName>/, and checks every kept trace first on
// every later run, as a regression test that survives code changes.
//
//	func TestRaft(t *testing.T) {
//		demitest.Check(t, raft.System(), demitest.Bugs(raft.Bug45))
//	}
//
// # What Check does
//
//  1. Every trace under testdata/demi/<TestName>/ (or only the one named
//     by -demi.trace) is checked with package check, under the test's
//     options: a trace whose violation replays exactly fails the test; one
//     whose exact replay diverges (the code changed) is re-checked the way
//     minimization checks a candidate, and if some schedule near it still
//     reaches the violation the test fails and that schedule replaces the
//     trace; if none does within the budget, the bug is fixed on that trace:
//     the test logs so and goes on (-demi.prune deletes the trace).
//  2. Then it fuzzes: seeds -demi.seed, -demi.seed+1, ... for -demi.runs
//     runs or until -demi.budget of wall-clock time, each run a
//     record.Fuzz of the system under the test's options.
//  3. On a violation it writes the failing trace as seed-N.trace,
//     minimizes it (package minimize, unless -demi.minimize=false) into
//     seed-N.min.trace beside it, and fails the test with the violation, the
//     seed, the minimized trace's round view (or its event table) and the
//     commands that replay it, step through it and re-run the fuzzing.
//
// Commit the traces: they are the regression tests. A trace that the test
// reports as fixed can be deleted by hand or with -demi.prune.
//
// # Flags
//
// The package registers these flags of `go test` (set on the command line,
// they override the test's Options):
//
//	-demi.seed N        first fuzzing seed (default 1)
//	-demi.runs N        fuzzing runs (default 100)
//	-demi.budget D      wall-clock budget of the fuzzing (default 20s)
//	-demi.minimize=false  keep the failing trace without minimizing it
//	-demi.trace PATH    check this one trace and do not fuzz
//	-demi.prune         delete the kept traces whose bug is fixed
//
// # The commands in a failure
//
// The failure message names a demi binary that knows the system: `go run
// ./cmd/demi` inside demi's own module; elsewhere your module's own binary,
// the first main package under the module root that calls cli.Main (`go
// run ./cmd/mydemi`), found by reading the files; else `go run
// github.com/demi-project/demi/cmd/demi`, which knows only demi's example
// systems. The Command option names the binary explicitly. Paths in the
// commands are relative to the module root, where the commands are meant
// to be run.
//
// # Checking a system's lower bound
//
// A system that gives the optimum searches a lower bound
// (record.System.LowerBound) promises that it never exceeds what a run
// still spends to its violation. CheckLowerBound(t, sys, trace) replays a
// trace and fails t at the first state where the bound is above what the
// trace itself still spends (deliveries, and deliveries plus external
// events); LowerBoundAlong returns both series. Run it on the traces the
// system ships and on fuzzed runs of other seeds
// (examples/paxos/lowerbound_test.go does both).
//
// See docs/go-test.md for a walk-through.
package demitest
