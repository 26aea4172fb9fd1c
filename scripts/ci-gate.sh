#!/usr/bin/env bash
# Regression gate: run the quick CI suite and compare it with the committed
# baseline, on ratios to a reference adapter measured in the same run (so a
# slower or busier machine does not read as a regression), with a generous
# minimum effect for times and exact allocation counts.
#
# The reference is fastcache, not map: its hash has no per-process seed and
# its memory is off-heap chunks, and its lookup time is the same from one
# process to the next, while the Go map's lookup time is bimodal across
# processes (about 105 or 135 ns at 50,000 keys on the dev machine), which
# would shift every ratio by 20%.
#
# Usage:
#   scripts/ci-gate.sh [BINARY]                  run the suite, compare with the baseline
#                                                (exit 0 ok, 1 regression, 2 bad input)
#   scripts/ci-gate.sh update-baseline [BINARY]  re-measure and rewrite the baseline
#   scripts/ci-gate.sh run BINARY OUT.json       only run the suite
#   scripts/ci-gate.sh compare BINARY OLD NEW    only compare, with the gate's settings
#
# BINARY defaults to a fresh build of ./cmd/cachebench. Environment:
#   CI_GATE_BASELINE   one baseline file (default: every results/baseline/ci*.json; the one
#                      from this CPU model gates everything, the others allocs/op and B/op)
#   CI_GATE_ADAPTERS   adapters of the suite (default below; it must include the reference)
#   CI_GATE_REFERENCE  reference adapter of the normalisation (default fastcache)
#   CI_GATE_KEYS       keys (default 50000: a few seconds per run)
#   CI_GATE_COUNT      repetitions (default 10)
#   CI_GATE_THRESHOLD  minimum effect for normalised times and rates (default 25%)
#   CI_GATE_FORMAT     table format of the comparison (default text)
#   CI_GATE_OUT        where the gate writes the new results (default: a temp dir)
#   CI_GATE_BASELINE_COUNT  repetitions of update-baseline (default 20: the baseline
#                      is measured once, so it gets more samples)
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=${CI_GATE_BASELINE:-}
ADAPTERS=${CI_GATE_ADAPTERS:-map,fastcache,freecache,bigcache,otter,syncmap,shardcache}
KEYS=${CI_GATE_KEYS:-50000}
COUNT=${CI_GATE_COUNT:-10}
THRESHOLD=${CI_GATE_THRESHOLD:-25%}
FORMAT=${CI_GATE_FORMAT:-text}
REFERENCE=${CI_GATE_REFERENCE:-fastcache}

build() {
	local out
	out=$(mktemp -d)/cachebench
	go build -o "$out" ./cmd/cachebench
	echo "$out"
}

# suite BINARY OUT: the quick CI suite, written as JSON to OUT.
suite() {
	"$1" run --adapters "$ADAPTERS" --workload insert-lookup --keys "$KEYS" --count "$COUNT" --cpu 1 \
		--progress never --format json -o "$2"
}

# cpu FILE: the CPU model a JSON result was measured on.
cpu() {
	sed -n 's/^ *"cpu_model": *"\(.*\)",*$/\1/p' "$1" | head -n 1
}

# gate BINARY OLD NEW: compare with the gate's settings (exit 0/1/2).
# Ratios between adapters depend on the CPU (cache sizes, memory latency):
# against a baseline from another CPU model only the deterministic
# allocs/op and B/op are gated.
gate() {
	local metrics=ns/op,ops/s,allocs/op,B/op
	if [ "$(cpu "$2")" != "$(cpu "$3")" ]; then
		echo "ci-gate: OLD was measured on \"$(cpu "$2")\", NEW on \"$(cpu "$3")\": comparing allocs/op and B/op only" >&2
		metrics=allocs/op,B/op
	fi
	"$1" compare --normalize "$REFERENCE" --threshold "$THRESHOLD" --min-samples "$COUNT" \
		--metrics "$metrics" --format "$FORMAT" "$2" "$3"
}

case "${1:-}" in
run)
	suite "$2" "$3"
	;;
compare)
	gate "$2" "$3" "$4"
	;;
update-baseline)
	bin=${2:-$(build)}
	# One baseline per CPU model (as the result names it): ci-<model>.json.
	tmp=$(mktemp -d)/ci.json
	COUNT=${CI_GATE_BASELINE_COUNT:-20} suite "$bin" "$tmp"
	tag=$(cpu "$tmp" | sed 's/[^A-Za-z0-9]\+/-/g; s/^-//; s/-$//' | tr 'A-Z' 'a-z')
	out=${BASELINE:-results/baseline/ci-${tag}.json}
	mkdir -p "$(dirname "$out")"
	mv "$tmp" "$out"
	echo "wrote $out" >&2
	;;
*)
	bin=${1:-$(build)}
	if [ -n "$BASELINE" ]; then
		baselines=("$BASELINE")
	else
		shopt -s nullglob
		baselines=(results/baseline/ci*.json)
	fi
	if [ ${#baselines[@]} -eq 0 ] || [ ! -f "${baselines[0]}" ]; then
		echo "ci-gate: no baseline in results/baseline (create one with: scripts/ci-gate.sh update-baseline)" >&2
		exit 2
	fi
	new=${CI_GATE_OUT:-$(mktemp -d)/ci.json}
	suite "$bin" "$new"
	# The worst outcome wins: 2 (could not compare) over 1 (regression) over 0.
	worst=0
	for base in "${baselines[@]}"; do
		set +e
		gate "$bin" "$base" "$new"
		code=$?
		set -e
		case $code in
		0) echo "ci-gate: no regression against $base" >&2 ;;
		1) echo "ci-gate: REGRESSION against $base (new results kept in $new)" >&2 ;;
		*) echo "ci-gate: could not compare with $base (exit $code)" >&2 ;;
		esac
		if [ "$code" -gt "$worst" ]; then
			worst=$code
		fi
	done
	exit $worst
	;;
esac
