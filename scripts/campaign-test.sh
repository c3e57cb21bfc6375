#!/usr/bin/env bash
# campaign-test.sh checks that a campaign split over 4 shards run by GNU
# parallel (docs/campaigns.md) gives the same triage groups as one
# sequential run over the same seeds: the same summary table (group,
# system, violation, count, first seed, shortest trace, minimized size)
# and the same minimized traces, byte for byte. Needs `parallel` (Debian
# package parallel). About 20 seconds on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/demi" ./cmd/demi
cd "$tmp"
flags=(--system tokenring --bug restore-token --bug panic-on-lap --seed 1 --max-steps 300)

./demi fuzz "${flags[@]}" --runs 48 --dir seq >/dev/null 2>&1
parallel --will-cite --halt now,fail=1 ./demi fuzz "${flags[@]}" --runs 12 --shard {}/4 --dir par ::: 0 1 2 3 >/dev/null 2>&1

./demi triage seq -o seq-triage -j 2 --budget 1m | grep -v '^wrote ' >seq.txt
./demi triage par -o par-triage -j 2 --budget 1m | grep -v '^wrote ' >par.txt

diff -u <(ls seq) <(ls par)
diff -u seq.txt par.txt
groups=$(grep -c '\.trace' seq.txt)
[ "$groups" -ge 2 ] || { echo "campaign-test: want at least 2 groups, got $groups" >&2; exit 1; }
for f in seq-triage/*.min.trace; do
  cmp "$f" "par-triage/$(basename "$f")"
done
cat seq.txt
echo "campaign-test: 4 shards under GNU parallel give the sequential run's $groups triage groups"
