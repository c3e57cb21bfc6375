#!/usr/bin/env bash
# ablation.sh measures what each pass of demi minimize pays for: it
# minimizes every trace with the default flags, then once per pass with that
# pass left out (--passes -NAME), and prints a markdown table: a row per
# trace, a column per pass left out, each cell the result's size
# (deliveries + externals, "=" when the same as with every pass) and the
# run's steps in thousands; the last column is the share of the default
# run's steps that came after its last improvement. A pass the default run
# never called is left out without a run (the result would be the same run),
# and so is one it called without ever making the trace smaller ("·": the
# pass did not pay there; only the steps it used would change), counting its
# calls in the beam's forks too (--stats' "fork" figures).
# Sizes and steps depend on the trace and --steps alone (not on -j or the
# machine), so the table regenerates as it is.
#
# Usage: scripts/ablation.sh [-w PAGE] [-p PASS,PASS] TRACE...
#   -p limits the columns to the passes listed (default: every pass but
#      provenance).
#   -w writes the table into PAGE between the lines <!-- ablation --> and
#      <!-- /ablation --> instead of printing it (docs/minimization.md,
#      "Ablation").
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
passes=""
page=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	-p) passes="$2"; shift 2 ;;
	-w) page="$2"; shift 2 ;;
	*) break ;;
	esac
done
if [[ $# -eq 0 ]]; then
	echo "usage: scripts/ablation.sh [-w PAGE] [-p PASS,PASS] TRACE..." >&2
	exit 2
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/demi" ./cmd/demi)
if [[ -z "$passes" ]]; then
	# The pass names, in table order, from demi minimize --help.
	passes="$("$bin/demi" minimize --help | sed -n '/^Passes (/,/^$/p' | awk 'NF>1 && $1!="Passes" {print $1}' | grep -v '^provenance$' | paste -sd, -)"
fi

# run TRACE NAME [FLAGS...]: minimize TRACE into $bin/NAME.json.
run() {
	local t="$1" n="$2"
	shift 2
	"$bin/demi" minimize "$t" -o "$bin/$n.min.trace" --stats "$bin/$n.json" --budget 60m -j "${ABLATION_JOBS:-2}" "$@" >/dev/null 2>&1
	rm -f "$bin/$n.min.trace"
}

# stat FILE.json FIELD: size (deliveries+externals), steps, the share of
# the steps after the last improvement, or calls or successes of a pass
# (calls:NAME, successes:NAME).
stat() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["final"]
size = f["deliveries"] + f["externals"]
what = sys.argv[2]
if what == "size":
    print(size)
elif what == "steps":
    print(d["steps"])
elif what == "after":
    first = next(p["steps"] for p in d["pace"] if p["deliveries"] + p["externals"] == size)
    print("%.0f%%" % (100 * (d["steps"] - first) / max(d["steps"], 1)))
else:
    # A pass's calls and successes in the beam's forks count too: a pass
    # that pays only there is ablated like one that pays in the run.
    field, name = what.split(":", 1)
    print(sum(p[field] + p.get("fork", {}).get(field, 0) for p in d["passes"] if p["name"] == name))
EOF
}

table="$bin/table.md"
{
	header="| trace | every pass |"
	rule="|---|---|"
	for p in ${passes//,/ }; do
		header+=" \`-$p\` |"
		rule+="---|"
	done
	echo "$header after last improvement |"
	echo "$rule---|"
	for t in "$@"; do
		n="$(basename "$t" .trace)"
		run "$t" "$n"
		base="$(stat "$bin/$n.json" size)"
		steps="$(stat "$bin/$n.json" steps)"
		row="| $n | $base ($((steps / 1000))k) |"
		for p in ${passes//,/ }; do
			if [[ "$(stat "$bin/$n.json" "calls:$p")" == 0 ]]; then
				row+=" = ($((steps / 1000))k) |"
				continue
			fi
			if [[ "$(stat "$bin/$n.json" "successes:$p")" == 0 ]]; then
				row+=" · |"
				continue
			fi
			run "$t" "$n-$p" --passes "-$p"
			s="$(stat "$bin/$n-$p.json" size)"
			st="$(stat "$bin/$n-$p.json" steps)"
			if [[ "$s" == "$base" ]]; then s="="; fi
			row+=" $s ($((st / 1000))k) |"
		done
		echo "$row $(stat "$bin/$n.json" after) |"
	done
} | tee "$table" | if [[ -z "$page" ]]; then cat; else cat >/dev/null; fi

if [[ -z "$page" ]]; then
	exit 0
fi
python3 - "$page" "$table" <<'EOF'
import sys
page, table = sys.argv[1], open(sys.argv[2]).read()
text = open(page).read()
start, end = "<!-- ablation -->\n", "<!-- /ablation -->"
i, j = text.index(start) + len(start), text.index(end)
open(page, "w").write(text[:i] + table + text[j:])
EOF
