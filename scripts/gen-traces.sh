#!/usr/bin/env bash
# gen-traces.sh regenerates every trace shipped in examples/traces, for the
# raft example and (named etcdraft-<bug>.*, paxos-<bug>.*) the etcdraft and
# paxos examples:
#   - <bug>.trace: the failing execution `demi fuzz` finds for each bug switch
#     of the raft example with the documented seed and fuzz configuration
#     (docs/examples.md explains each choice);
#   - <bug>.reference.trace: the hand-built smallest reproducer of each bug
#     (examples/raft/reference.go, examples/etcdraft/reference.go), applied
#     event by event through the runtime;
#   - <bug>.min.trace: what `demi minimize` makes of <bug>.trace.
# The same tree gives byte-identical files: fuzzing is a function of the seed,
# and the references are fixed schedules.
#
# Usage: scripts/gen-traces.sh [OUTDIR]   (default examples/traces)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/examples/traces}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/demi" ./cmd/demi

# The fuzz run of each bug (seed and flags) is the table raft.ShippedFuzz in
# examples/raft/shipped.go; genref -fuzz-args prints it as demi fuzz flags,
# one bug a line. docs/examples.md explains each choice.
go run ./examples/raft/internal/genref -fuzz-args >"$bin/cases"
while read -r bug args; do
  # shellcheck disable=SC2086
  "$bin/demi" fuzz --system raft $args -o "$out/$bug.trace"
done <"$bin/cases"

go run ./examples/raft/internal/genref -dir "$out"

# <bug>.min.trace: `demi minimize` of each failing trace (docs/minimization.md).
# Its budgets are counted in steps (the default --steps), so the result
# depends neither on -j nor on the machine's load; the wall-clock --budget
# is only an outer cap, set far enough (10m) that it never binds, even on a
# loaded machine (a run that reaches it stops at the best trace so far).
while read -r bug _; do
  "$bin/demi" minimize "$out/$bug.trace" --budget 10m -o "$out/$bug.min.trace"
done <"$bin/cases"

# The etcdraft example: the same three steps. Its fuzz cases
# (etcdraft.ShippedFuzz in examples/etcdraft/shipped.go) search seeds from 1
# and keep the first run with a violation after 1,000 deliveries.
go run ./examples/etcdraft/internal/genref -fuzz-args >"$bin/etcdraft-cases"
while read -r name args; do
  # shellcheck disable=SC2086
  "$bin/demi" fuzz --system etcdraft $args -o "$out/$name.trace"
done <"$bin/etcdraft-cases"
go run ./examples/etcdraft/internal/genref -dir "$out"
# The same 10-minute outer cap as above.
while read -r name _; do
  "$bin/demi" minimize "$out/$name.trace" --budget 10m -o "$out/$name.min.trace"
done <"$bin/etcdraft-cases"

# The paxos example: the first failing run of each bug switch from seed 1
# with demi fuzz's defaults, and its minimization (no reference: demi
# optimal proves the optimum, docs/examples.md).
for bug in forget-accepted accept-below-promise; do
  "$bin/demi" fuzz --system paxos --mode walk --bug "$bug" --seed 1 -o "$out/paxos-$bug.trace"
  "$bin/demi" minimize "$out/paxos-$bug.trace" --budget 10m -o "$out/paxos-$bug.min.trace"
done

# The spark example: the same three steps. Its fuzz cases
# (spark.ShippedFuzz in examples/spark/shipped.go) search seeds from 1
# and keep the first run with a violation after 300 deliveries.
go run ./examples/spark/internal/genref -fuzz-args >"$bin/spark-cases"
while read -r bug args; do
  # shellcheck disable=SC2086
  "$bin/demi" fuzz --system spark --mode walk $args -o "$out/$bug.trace"
done <"$bin/spark-cases"
go run ./examples/spark/internal/genref -dir "$out"
while read -r bug _; do
  "$bin/demi" minimize "$out/$bug.trace" --budget 10m -o "$out/$bug.min.trace"
done <"$bin/spark-cases"
