#!/usr/bin/env bash
# Cross-checks cachebench's runner against the plainest possible loop:
# runs the bare-loop benchmark (BenchmarkLookup in internal/workloads/runner) and
# `cachebench run` back to back, ROUNDS times alternately, on the same
# insert-lookup data at GOMAXPROCS 1, COUNT repetitions (fresh instances)
# per side and round, and prints the median lookup time of each side,
# their ratio, and each side's coefficient of variation over its
# repetitions. The runner's figures should be within about 10% of the bare
# loop's and rank the adapters the same; "null"/"loop" is each side's own
# floor. Medians, because one instance of a cache can look up markedly
# slower than the next on the same machine (fastcache: up to 2× between
# instances, in both loops), and a mean of a few is then mostly luck.
#   scripts/crosscheck.sh                       # 1,000,000 keys, 2 rounds of 5
#   KEYS=100000 ROUNDS=1 COUNT=3 scripts/crosscheck.sh  # quicker
#   OUT=results/measure/bare-loop-crosscheck.txt scripts/crosscheck.sh
# Then, because this machine's speed drifts by tens of percent from one
# second to the next (the same instance's laps differ that much), it runs
# BenchmarkPaired (internal/workloads/runner): each adapter built once, LAPS
# laps of its lookups (default 5), each cut into CHUNKS parts (default 8),
# each part timed through the runner's pass and through the plainest loop
# over the same instance, and prints the median of the per-part ratios:
# what the runner adds, with less of the drift.
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-1000000}
rounds=${ROUNDS:-2}
count=${COUNT:-5}
# One lap of the lookup stream per timing by default, as the runner's
# timed pass (BENCHTIME=1s gives the testing package's own sizing).
benchtime=${BENCHTIME:-${keys}x}
adapters=${ADAPTERS:-map,fastcache,shardcache,mmapstore}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cachebench" ./cmd/cachebench
go test -c -o "$tmp/crosscheck.test" ./internal/workloads/runner
go test -c -o "$tmp/runner.test" ./internal/workloads/runner
laps=${LAPS:-5}
chunks=${CHUNKS:-8}
[ "$chunks" -ge 1 ] || chunks=1
for r in $(seq "$rounds"); do
	echo "round $r/$rounds: bare loop" >&2
	"$tmp/crosscheck.test" -test.run '^$' -test.bench '^BenchmarkLookup$' -test.cpu 1 -test.count "$count" -test.benchtime "$benchtime" \
		-crosscheck.keys "$keys" >>"$tmp/bare.txt"
	echo "round $r/$rounds: cachebench run" >&2
	"$tmp/cachebench" run --adapters "null,$adapters" --workload insert-lookup --keys "$keys" --count "$count" --cpu 1 \
		--format gobench --progress never >>"$tmp/run.txt"
done
# Median and CoV of ns/op per implementation of each side, then the table.
awk -v adapters="$adapters" -v keys="$keys" -v rounds="$rounds" -v count="$count" '
FNR == 1 { side++ }
/^BenchmarkLookup\/impl=/ {
	name = $1; sub(/^BenchmarkLookup\/impl=/, "", name); sub(/\/.*$/, "", name); sub(/-[0-9]+$/, "", name)
	if (name == "null") name = "loop"
	for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") { x[side, name, ++n[side, name]] = $i }
}
function median(s, a,    m, i, j, t, v) {
	m = n[s, a]
	for (i = 1; i <= m; i++) v[i] = x[s, a, i]
	for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
	return (m % 2) ? v[(m+1)/2] : (v[m/2] + v[m/2+1]) / 2
}
function cov(s, a,    m, i, sum, ss) {
	m = n[s, a]; if (m < 2) return 0
	for (i = 1; i <= m; i++) sum += x[s, a, i]
	for (i = 1; i <= m; i++) ss += (x[s, a, i] - sum / m) ^ 2
	return 100 * sqrt(ss / (m - 1)) / (sum / m)
}
END {
	split("loop," adapters, names, ",")
	printf "Lookup ns/op, insert-lookup, %d keys, GOMAXPROCS 1: median of %d alternating rounds × %d repetitions per side\n\n", keys, rounds, count
	printf "| adapter | cachebench run | bare loop | run / bare | CoV run | CoV bare |\n|---|---:|---:|---:|---:|---:|\n"
	for (k = 1; k in names; k++) {
		a = names[k]
		if (!n[2, a] || !n[1, a]) { printf "| %s | missing | missing | | | |\n", a; continue }
		run = median(2, a); bare = median(1, a)
		label = (a == "loop") ? "floor (null / loop)" : a
		printf "| %s | %.1f | %.1f | %.2f× | %.0f%% | %.0f%% |\n", label, run, bare, run / bare, cov(2, a), cov(1, a)
		if (a != "loop") { runs[a] = run; bares[a] = bare }
	}
	# Ranking of each side, fastest first.
	for (side = 1; side <= 2; side++) {
		order = ""
		m = 0
		for (a in runs) { m++; key[m] = a }
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) {
			vi = (side == 1) ? bares[key[i]] : runs[key[i]]
			vj = (side == 1) ? bares[key[j]] : runs[key[j]]
			if (vj < vi) { t = key[i]; key[i] = key[j]; key[j] = t }
		}
		for (i = 1; i <= m; i++) order = order (i > 1 ? " < " : "") key[i]
		rank[side] = order
	}
	printf "\nranking, bare loop:      %s\nranking, cachebench run: %s\n", rank[1], rank[2]
	printf "same ranking: %s\n", (rank[1] == rank[2]) ? "yes" : "no"
}' "$tmp/bare.txt" "$tmp/run.txt" | tee "${OUT:-/dev/null}"
echo "paired: $laps laps of $chunks parts per adapter" >&2
if ! "$tmp/runner.test" -test.run '^$' -test.bench '^BenchmarkPaired$' -test.cpu 1 -test.benchtime "${laps}x" \
	-paired.keys "$keys" -paired.chunks "$chunks" -paired.adapters "null,$adapters" >"$tmp/paired.txt"; then
	cat "$tmp/paired.txt" >&2
	echo "crosscheck: BenchmarkPaired failed" >&2
	exit 1
fi
awk -v keys="$keys" -v laps="$laps" -v chunks="$chunks" '
/^BenchmarkPaired\/impl=/ {
	name = $1; sub(/^BenchmarkPaired\/impl=/, "", name); sub(/\/.*$/, "", name); sub(/-[0-9]+$/, "", name)
	for (i = 2; i < NF; i++) v[name, $(i+1)] = $i
	order[++n] = name
}
END {
	printf "\nThe same, paired: one instance per adapter, %d laps of %d parts, each part timed through the runner'"'"'s pass and through the bare loop, alternately first (%d keys, GOMAXPROCS 1); medians over the %d pairs\n\n", laps, chunks, keys, laps * chunks
	printf "| adapter | runner pass | bare loop | run / bare (median of pairs) | CoV runner parts | CoV bare parts | bare parts, min–max | CoV of the ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
	for (k = 1; k <= n; k++) {
		a = order[k]
		label = (a == "null") ? "floor (null)" : a
		printf "| %s | %.1f | %.1f | %.2f× | %.0f%% | %.0f%% | %.0f–%.0f | %.0f%% |\n", label, v[a, "run-ns/op"], v[a, "bare-ns/op"], v[a, "run/bare"], v[a, "run-cov%"], v[a, "bare-cov%"], v[a, "bare-min-ns/op"], v[a, "bare-max-ns/op"], v[a, "ratio-cov%"]
	}
	printf "\nThe CoV of each side is the drift of one instance from part to part; the ratio'"'"'s is what is left once each pair is compared.\n"
}' "$tmp/paired.txt" | tee -a "${OUT:-/dev/null}"
