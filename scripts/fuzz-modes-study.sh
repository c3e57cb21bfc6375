#!/usr/bin/env bash
# fuzz-modes-study.sh checks the minimizer on traces of the shapes the other
# fuzz modes make (docs/fuzz-modes.md): for every bug of the fresh-seed study
# (docs/evaluation.json, its "fresh" rows) and every mode but walk (swarm,
# rounds, coverage), it fuzzes with the study's arguments in that mode from
# seed FROM (the first failing run of at most 400; rounds needs a system whose
# messages carry a round and is skipped where the system has none), minimizes
# the trace with the default flags and -j 1, and prints a row per trace: the
# input and result sizes, the study's best known size and the ratio, the
# steps and the wall seconds. Sizes and steps do not depend on the machine.
#
# Usage: scripts/fuzz-modes-study.sh FROM OUTDIR
set -euo pipefail

from=${1:?usage: fuzz-modes-study.sh FROM OUTDIR}
out=${2:?usage: fuzz-modes-study.sh FROM OUTDIR}
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
demi="$out/demi"
(cd "$root" && go build -o "$demi" ./cmd/demi)

python3 - "$root/docs/evaluation.json" >"$out/bugs.txt" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["fresh"]:
    b = f["best"]
    print(f["bug"], b["deliveries"] + b["externals"], f["fuzz_args"])
PY

printf '| trace | input | result | best known | ratio | steps | seconds |\n| --- | --- | --- | --- | --- | --- | --- |\n'
while read -r bug best args; do
	for mode in swarm rounds coverage; do
		name="$bug-$mode"
		rc=0
		# shellcheck disable=SC2086 # args is the study's argument list
		"$demi" fuzz ${args/--mode walk/--mode $mode} --seed "$from" --runs 400 \
			-o "$out/$name.trace" >"$out/$name.fuzz.log" 2>&1 || rc=$?
		case $rc in
		0) ;;
		1) echo "| $name | no failing run in 400 | | | | | |"; continue ;;
		2) # the mode does not apply to the system (rounds); any other bad input stops the study
			grep -q 'carries a round' "$out/$name.fuzz.log" && continue
			echo "$name: demi fuzz: bad input (see $out/$name.fuzz.log)" >&2; exit 1 ;;
		*) echo "$name: demi fuzz exited $rc (see $out/$name.fuzz.log)" >&2; exit 1 ;;
		esac
		start=$(date +%s.%N)
		"$demi" minimize "$out/$name.trace" -o "$out/$name.min.trace" -j 1 \
			--stats "$out/$name.json" >"$out/$name.min.log" 2>&1
		end=$(date +%s.%N)
		python3 - "$out/$name.json" "$name" "$best" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name, best, start, end = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
i, f = d["pace"][0], d["final"]
t = f["deliveries"] + f["externals"]
print(f"| {name} | {i['deliveries']} (E:{i['externals']}) | {f['deliveries']} (E:{f['externals']}) | {best} | "
      f"{t / best:.2f} | {d['steps']:,} | {end - start:.1f} |")
PY
	done
done <"$out/bugs.txt"
