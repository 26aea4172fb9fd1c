#!/usr/bin/env bash
# Process-to-process spread of lookup ratios: runs the same small suite in
# PROCESSES separate processes (COUNT repetitions each, default 5, the
# default of cachebench run) and prints, for each ratio of lookup times
# (shardcache/fastcache, map/fastcache, shardcache/map) as a process
# reports it (the ratio of the adapters' means over the repetitions) and
# as the ratio of their medians, its mean, standard deviation and
# coefficient of variation across processes. With BEFORE_REV set, a
# binary built from that git revision runs too, its processes alternating
# with the current tree's, so both are measured in the same minutes.
#   scripts/spread-experiment.sh                          # current tree, 10 processes
#   BEFORE_REV=main~3 scripts/spread-experiment.sh        # before and after
#   OUT=results/measure/lookup-ratio-spread-across-processes.txt scripts/spread-experiment.sh
# Environment: KEYS (default 1000000), PROCESSES (default 10), COUNT
# (default 5; 1 gives the spread of single repetitions), NOTE (a line
# printed in the output, e.g. how busy the machine was).
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-1000000}
procs=${PROCESSES:-10}
count=${COUNT:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/after" ./cmd/cachebench
sides=after
if [ -n "${BEFORE_REV:-}" ]; then
	mkdir -p "$tmp/src"
	git archive "$BEFORE_REV" | tar -x -C "$tmp/src"
	(cd "$tmp/src" && go build -o "$tmp/before" ./cmd/cachebench)
	sides="before after"
fi
for p in $(seq "$procs"); do
	for side in $sides; do
		echo "process $p/$procs: $side" >&2
		# --no-floor where the binary has it: the floor is not part of the ratios.
		floor=""
		"$tmp/$side" run --help 2>/dev/null | grep -q -- --no-floor && floor=--no-floor
		"$tmp/$side" run --adapters map,fastcache,shardcache --workload insert-lookup --keys "$keys" --count "$count" --cpu 1 \
			$floor --format json --progress never -o "$tmp/$side-$p.json" 2>/dev/null
		jq -r 'def mean: add / length;
			def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
			[.measurements[] | select(.phase == "lookup") | {(.adapter): [.samples[].ns_per_op]}] | add
			| "\(.shardcache | mean) \(.map | mean) \(.fastcache | mean) \(.shardcache | median) \(.map | median) \(.fastcache | median)"
			| split(" ") | map(tonumber) | "\(.[0] / .[2]) \(.[1] / .[2]) \(.[3] / .[5]) \(.[4] / .[5]) \(.[0] / .[1]) \(.[3] / .[4])"' "$tmp/$side-$p.json" >>"$tmp/$side.ratios"
	done
done
{
	echo "Lookup-time ratios across $procs processes, insert-lookup, $keys keys, GOMAXPROCS 1, $count repetitions per process"
	echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) logical cores, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%MZ)"
	[ -n "${NOTE:-}" ] && echo "$NOTE"
	echo
	echo "| binary | ratio | mean | sd | CoV | per process |"
	echo "|---|---|---:|---:|---:|---|"
	for side in $sides; do
		label=$side
		[ "$side" = before ] && label="before ($BEFORE_REV)"
		[ "$side" = after ] && label="after ($(git rev-parse --short HEAD)$(git diff --quiet || echo +changes))"
		for col in 1 2 3 4 5 6; do
			case $col in
			1) name="shardcache/fastcache (means)" ;;
			2) name="map/fastcache (means)" ;;
			3) name="shardcache/fastcache (medians)" ;;
			4) name="map/fastcache (medians)" ;;
			5) name="shardcache/map (means)" ;;
			6) name="shardcache/map (medians)" ;;
			esac
			awk -v c=$col -v name="$name" -v label="$label" '
				{ x[NR] = $c; s += $c }
				END {
					m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
					sd = (NR > 1) ? sqrt(v / (NR - 1)) : 0
					list = ""; for (i = 1; i <= NR; i++) list = list sprintf("%s%.2f", i > 1 ? " " : "", x[i])
					printf "| %s | %s | %.3f | %.3f | %.1f%% | %s |\n", label, name, m, sd, 100 * sd / m, list
				}' "$tmp/$side.ratios"
		done
	done
} | tee "${OUT:-/dev/null}"
