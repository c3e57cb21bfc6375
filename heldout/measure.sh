#!/usr/bin/env bash
# heldout/measure.sh [OUT]: the held-out measurement (heldout/README.md). For
# each held-out system: build its demi binary, run a campaign of RUNS seeds
# from seed 1, take the first FIRST failing seeds (by seed, never chosen),
# minimize each with default flags and -j 1, then search its optimum with
# optimal --subsets within OPTIMAL_BUDGET. Prints one markdown table per
# system; every file it makes stays under OUT (default a new temporary
# directory). Measure only: never tune demi on what this prints.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-$(mktemp -d)}
first=${FIRST:-5}
budget=${OPTIMAL_BUDGET:-60s}
mkdir -p "$out"
# system directory, binary, system name, bug switch, campaign runs
while read -r dir bin sys bug runs; do
  w="$out/$dir"
  mkdir -p "$w"
  (cd "$dir" && go build -o "$w/$bin" "./cmd/$bin")
  "$w/$bin" fuzz --system "$sys" --bug "$bug" --seed 1 --runs "$runs" --dir "$w/camp" >"$w/camp.out" 2>&1 || true
  echo
  echo "### $sys ($bug): the first $first failing seeds of $runs from seed 1"
  echo
  echo "| seed | input | minimized | steps | seconds | optimal --subsets ($budget) |"
  echo "|---|---|---|---|---|---|"
  for t in $(ls "$w/camp"/*.trace | sed -E 's/.*-([0-9]+)\.trace$/\1 &/' | sort -n | head -"$first" | cut -d' ' -f2); do
    n=$(basename "$t" .trace)
    "$w/$bin" minimize "$t" -o "$w/$n.min.trace" -j 1 --stats "$w/$n.json" >"$w/$n.min.out" 2>&1
    "$w/$bin" optimal --subsets "$w/$n.min.trace" --budget "$budget" -j 1 -o "$w/$n.optimal.trace" >"$w/$n.opt.out" 2>&1 || true
    verdict=$(grep -E "is optimal|smaller schedule found|stopped before finishing" "$w/$n.opt.out" | tail -1 | tr "|" "/")
    python3 - "$w/$n.json" "${n##*-}" "$verdict" <<'PY'
import json, sys
y = json.load(open(sys.argv[1]))
i, f = y["stages"][0], y["final"]
print("| %s | %d (E:%d) | %d (E:%d) | %s | %.1f | %s |" % (sys.argv[2], i["deliveries"], i["externals"],
      f["deliveries"], f["externals"], format(y["steps"], ","), y["seconds"], sys.argv[3]))
PY
  done
done <<'LIST'
onethirdrule demi-otr onethirdrule decide-two-thirds-of-received 1000
twophase demi-2pc twophase send-before-log 1000
kvraft demi-kvraft kvraft reapply-after-restart 200
LIST
