#!/usr/bin/env bash
# gen-traces.sh regenerates every trace shipped in examples/traces:
#   - <bug>.trace: the failing execution `demi fuzz` finds for each bug switch
#     of the raft example with the documented seed and fuzz configuration
#     (docs/examples.md explains each choice);
#   - <bug>.reference.trace: the hand-built smallest reproducer of each bug
#     (examples/raft/reference.go), applied event by event through the runtime.
# The same tree gives byte-identical files: fuzzing is a function of the seed,
# and the references are fixed schedules.
#
# Usage: scripts/gen-traces.sh [OUTDIR]   (default examples/traces)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/examples/traces}"
mkdir -p "$out"
cd "$root"

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/demi" ./cmd/demi

# bug      seed  extra fuzz flags (on top of --max-steps 3000 --externals 100
#                --timer-prob 0.05 --check-every 1 --min-deliveries 300)
cases=(
  "raft-45   45  "
  "raft-46   7   "
  "raft-56   13  --external-prob 0.2"
  "raft-58a  15  --externals 200 --external-prob 0.1"
  "raft-58b  1   --external-prob 0.2"
  "raft-42   2   "
  "raft-66   27  "
)

for c in "${cases[@]}"; do
  read -r bug seed extra <<<"$c"
  # shellcheck disable=SC2086
  "$bin/demi" fuzz --system raft --bug "$bug" --seed "$seed" --runs 1 \
    --max-steps 3000 --externals 100 --timer-prob 0.05 --check-every 1 \
    --min-deliveries 300 $extra -o "$out/$bug.trace"
done

go run ./examples/raft/internal/genref -dir "$out"
