#!/usr/bin/env bash
# Regression gate of this repository: a call of `cachebench gate` (see
# `cachebench gate --help` and internal/gate for what it does and
# why: the base revision and HEAD built in git worktrees, the quick suite
# run with both, interleaved, one repetition per process; times as ratios
# to fastcache with a 25% minimum effect and a confirming second set;
# allocations exactly against the base and the committed baselines).
#
# The reference is fastcache, not map: its hash has no per-process seed and
# its memory is off-heap chunks, and its lookup time is the same from one
# process to the next, while the Go map's lookup time is bimodal across
# processes (about 105 or 135 ns at 50,000 keys on the dev machine), which
# would shift every ratio by 20%.
#
# Usage:
#   scripts/ci-gate.sh [BINARY]                  gate HEAD against CI_GATE_BASE_REV (exit 0 ok,
#                                                1 regression, 2 bad input); BINARY runs the gate
#   scripts/ci-gate.sh update-baseline [BINARY]  re-measure this CPU model's baseline (it
#                                                gates allocations only: one process)
#   scripts/ci-gate.sh run BINARY OUT.json       only run the suite (as the gate does: spread
#                                                over processes, merged; for gate-experiment.sh)
#   scripts/ci-gate.sh compare BINARY OLD NEW    only compare (all metrics), with the
#                                                gate's settings
#
# BINARY defaults to a fresh build of ./cmd/cachebench. Environment:
#   CI_GATE_BASE_REV   git revision whose times HEAD is compared with (default HEAD~1;
#                      a pull request passes its base); "none", or a revision this
#                      clone lacks (a shallow clone, a first commit), gates allocations only
#   CI_GATE_BASELINE   one baseline file for the allocation gate (default: every
#                      results/baseline/ci*.json)
#   CI_GATE_ADAPTERS   adapters of the suite (default below; it must include the reference)
#   CI_GATE_REFERENCE  reference adapter of the normalisation (default fastcache)
#   CI_GATE_KEYS       keys (default 50000: about 5 seconds per run)
#   CI_GATE_COUNT      repetitions per side (default 10)
#   CI_GATE_PROCESSES  processes the repetitions of one side are spread over (default 10)
#   CI_GATE_THRESHOLD  minimum effect for normalised times and rates (default 25%)
#   CI_GATE_FORMAT     table format of the comparison (default text)
#   CI_GATE_OUT        where the gate writes the new results (default: not kept)
#   CI_GATE_BASELINE_COUNT  repetitions of update-baseline (default 20: the baseline
#                      is measured once, so it gets more samples)
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=${CI_GATE_BASELINE:-}
ADAPTERS=${CI_GATE_ADAPTERS:-map,fastcache,freecache,bigcache,otter,syncmap,shardcache}
KEYS=${CI_GATE_KEYS:-50000}
COUNT=${CI_GATE_COUNT:-10}
PROCESSES=${CI_GATE_PROCESSES:-10}
THRESHOLD=${CI_GATE_THRESHOLD:-25%}
FORMAT=${CI_GATE_FORMAT:-text}
REFERENCE=${CI_GATE_REFERENCE:-fastcache}

build() {
	local out
	out=$(mktemp -d)/cachebench
	go build -o "$out" ./cmd/cachebench
	echo "$out"
}

# suite BINARY OUT: the quick CI suite, written as JSON to OUT. Without the
# harness floor: its cost is in every adapter's figure alike and cancels in
# the ratios to the reference, and its own few nanoseconds moved by more
# than the threshold between processes (the gate's A/A alarms on this
# machine were its rows).
suite() {
	"$1" run --adapters "$ADAPTERS" --workload insert-lookup --keys "$KEYS" --count "$COUNT" --cpu 1 \
		--no-floor --progress never --format json -o "$2"
}

# measure DIR BIN [BIN2]: COUNT repetitions of the suite for BIN (and BIN2),
# spread over PROCESSES processes, BIN's and BIN2's alternating, merged into
# DIR/1.json (and DIR/2.json).
measure() {
	local dir=$1 per=$((COUNT / PROCESSES)) i b bin
	shift
	if [ "$per" -lt 1 ] || [ $((per * PROCESSES)) -ne "$COUNT" ]; then
		echo "ci-gate: CI_GATE_COUNT ($COUNT) must be a multiple of CI_GATE_PROCESSES ($PROCESSES)" >&2
		return 2
	fi
	mkdir -p "$dir"
	for i in $(seq 1 "$PROCESSES"); do
		b=0
		for bin in "$@"; do
			b=$((b + 1))
			if ! COUNT=$per suite "$bin" "$dir/$b-$i.json" 2>>"$dir/log"; then
				cat "$dir/log" >&2
				return 1
			fi
		done
	done
	b=0
	for bin in "$@"; do
		b=$((b + 1))
		"$1" merge -o "$dir/$b.json" $(seq -f "$dir/$b-%g.json" 1 "$PROCESSES") || return 1
	done
}

# cpu FILE: the CPU model a JSON result was measured on.
cpu() {
	sed -n 's/^ *"cpu_model": *"\(.*\)",*$/\1/p' "$1" | head -n 1
}

# gate BINARY OLD NEW [METRICS]: compare with the gate's settings (exit 0/1/2).
gate() {
	"$1" compare --normalize "$REFERENCE" --threshold "$THRESHOLD" --min-samples "$COUNT" \
		--metrics "${4:-ns/op,ops/s,allocs/op,B/op}" --format "$FORMAT" "$2" "$3"
}

case "${1:-}" in
run)
	dir=$(mktemp -d)
	measure "$dir" "$2"
	mv "$dir/1.json" "$3"
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
	baseline=${BASELINE:-results/baseline/ci*.json}
	base=${CI_GATE_BASE_REV:-HEAD~1}
	if [ "$base" != none ] && ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
		echo "ci-gate: times not gated: revision $base is not in this clone (shallow?)" >&2
		base=none
	fi
	exec "$bin" gate --base "$base" --new HEAD --baseline "$baseline" \
		--adapters "$ADAPTERS" --reference "$REFERENCE" --keys "$KEYS" --count "$COUNT" \
		--processes "$PROCESSES" --threshold "$THRESHOLD" --format "$FORMAT" \
		${CI_GATE_OUT:+-o "$CI_GATE_OUT"} ./cmd/cachebench
	;;
esac
