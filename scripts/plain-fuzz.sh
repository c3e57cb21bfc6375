#!/usr/bin/env bash
# plain-fuzz.sh measures how fast a plain `demi fuzz --system S --bug B`
# (no --opt, no --violation, default mode) finds every example bug: TRIALS
# trials per bug (default 20), trial k starting at seed 1+100000·k, each
# capped at CAP seconds (default 60). It prints a Markdown table: trials
# that found a violation, seconds to the first (median, min–max) and runs
# (median, min–max; a trial that finds nothing counts as CAP seconds), and
# the first trial's failing seed. A system whose name ends in -hard
# (raft-hard: the hard-bug set of docs/evaluation.md, with raft's own
# switches again) is left out: its bugs are not example bugs.
#
# Usage: scripts/plain-fuzz.sh [TRIALS] [CAP] [EXTRA demi fuzz flags...]
# ONLY=REGEXP limits it to the "system bug" lines that match.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
trials="${1:-20}"
cap="${2:-60}"
shift $(( $# >= 2 ? 2 : $# ))
extra=("$@")
cd "$root"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/demi" ./cmd/demi

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {if (NR==0) print "-"; else print lo "–" hi}'; }

echo "| system | bug | found | seconds (median, min–max) | runs (median, min–max) | first seed of trial 0 |"
echo "|---|---|---|---|---|---|"
"$tmp/demi" systems | awk '/^[a-z0-9-]+ — /{sys=$1} /^bug switches:/ && sys !~ /-hard$/ {sub(/^bug switches: /,""); n=split($0,b,", "); for(i=1;i<=n;i++) print sys, b[i]}' |
grep -E -- "${ONLY:-.}" |
while read -r sys bug; do
  : >"$tmp/secs"; : >"$tmp/runs"; found=0; first="-"
  for ((k = 0; k < trials; k++)); do
    seed=$((1 + 100000 * k))
    rm -f "$tmp/t.trace"
    start=$(date +%s.%N)
    if out=$("$tmp/demi" fuzz --system "$sys" --bug "$bug" --seed "$seed" --budget "${cap}s" ${extra[@]+"${extra[@]}"} -o "$tmp/t.trace" 2>/dev/null </dev/null); then
      end=$(date +%s.%N)
      found=$((found + 1))
      echo "$end - $start" | bc -l | xargs printf '%.2f\n' >>"$tmp/secs"
      run=$(sed -n 's/.*(seed \([0-9]*\), run \([0-9]*\)).*/\2/p' <<<"$out")
      echo "$run" >>"$tmp/runs"
      if ((k == 0)); then first=$(sed -n 's/.*(seed \([0-9]*\), run .*/\1/p' <<<"$out"); fi
    else
      echo "$cap" >>"$tmp/secs" # not found within the cap: counts as the cap
    fi
  done
  echo "| $sys | $bug | $found/$trials | $(median <"$tmp/secs") ($(range <"$tmp/secs")) | $(median <"$tmp/runs") ($(range <"$tmp/runs")) | $first |"
done
