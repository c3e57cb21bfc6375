#!/usr/bin/env bash
# ablation.sh measures what each pass of demi minimize pays for: it
# minimizes every trace with the default flags, then once per pass with that
# pass left out (--passes -NAME), and prints a markdown table: a row per
# pass left out, a column per trace with the result's size (deliveries +
# externals) and its steps in thousands, and "=" where the result is the
# same size as with every pass. Sizes and steps depend on the trace and
# --steps alone (not on -j or the machine), so the table regenerates as it
# is. docs/minimization.md ("Ablation") holds its output.
#
# Usage: scripts/ablation.sh [-p PASS,PASS] TRACE...
#   -p limits the rows to the passes listed (default: every pass but
#      provenance).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
passes=""
if [[ "${1:-}" == "-p" ]]; then
	passes="$2"
	shift 2
fi
if [[ $# -eq 0 ]]; then
	echo "usage: scripts/ablation.sh [-p PASS,PASS] TRACE..." >&2
	exit 2
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/demi" ./cmd/demi)
if [[ -z "$passes" ]]; then
	# The pass names, in table order, from demi minimize --help.
	passes="$("$bin/demi" minimize --help | sed -n '/^Passes (/,/^$/p' | awk 'NF>1 && $1!="Passes" {print $1}' | grep -v '^provenance$' | paste -sd, -)"
fi

# size FILE.json: "deliveries+externals steps" of a --stats file.
size() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["final"]; print(f["deliveries"]+f["externals"], d["steps"])' "$1"
}

declare -A base
header="| left out |"
rule="|---|"
for t in "$@"; do
	n="$(basename "$t" .trace)"
	header+=" $n |"
	rule+="---|"
	"$bin/demi" minimize "$t" -o "$bin/$n.min.trace" --stats "$bin/$n.json" --budget 60m -j 2 >/dev/null 2>&1
	base[$n]="$(size "$bin/$n.json")"
	rm -f "$bin/$n.min.trace"
done
echo "$header"
echo "$rule"
row="| (none) |"
for t in "$@"; do
	n="$(basename "$t" .trace)"
	read -r s st <<<"${base[$n]}"
	row+=" $s ($((st / 1000))k) |"
done
echo "$row"
for p in ${passes//,/ }; do
	row="| \`$p\` |"
	for t in "$@"; do
		n="$(basename "$t" .trace)"
		"$bin/demi" minimize "$t" -o "$bin/$n.min.trace" --stats "$bin/$n.json" --budget 60m -j 2 --passes "-$p" >/dev/null 2>&1
		read -r s st <<<"$(size "$bin/$n.json")"
		read -r bs _ <<<"${base[$n]}"
		if [[ "$s" == "$bs" ]]; then s="="; fi
		row+=" $s ($((st / 1000))k) |"
		rm -f "$bin/$n.min.trace"
	done
	echo "$row"
done
