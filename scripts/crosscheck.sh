#!/usr/bin/env bash
# Cross-checks cachebench's runner against the plainest possible loop:
# runs the bare-loop benchmark (internal/workloads/crosscheck) and
# `cachebench run` back to back, ROUNDS times alternately, on the same
# insert-lookup data at GOMAXPROCS 1, and prints the mean lookup time of
# each side and their ratio. The runner's figures should be within about
# 10% of the bare loop's and rank the adapters the same; "null"/"loop" is
# each side's own floor.
#   scripts/crosscheck.sh                       # 1,000,000 keys, 3 rounds
#   KEYS=100000 ROUNDS=2 scripts/crosscheck.sh  # quicker
#   OUT=results/crosscheck.txt scripts/crosscheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-1000000}
rounds=${ROUNDS:-3}
adapters=${ADAPTERS:-map,fastcache,shardcache,mmapstore}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cachebench" ./cmd/cachebench
go test -c -o "$tmp/crosscheck.test" ./internal/workloads/crosscheck
for r in $(seq "$rounds"); do
	echo "round $r/$rounds: bare loop" >&2
	"$tmp/crosscheck.test" -test.run '^$' -test.bench '^BenchmarkLookup$' -test.cpu 1 -test.count 1 \
		-crosscheck.keys "$keys" >>"$tmp/bare.txt"
	echo "round $r/$rounds: cachebench run" >&2
	"$tmp/cachebench" run --adapters "null,$adapters" --workload insert-lookup --keys "$keys" --count 1 --cpu 1 \
		--format gobench --progress never >>"$tmp/run.txt"
done
# Mean ns/op per implementation of each side, then the table.
awk -v adapters="$adapters" -v keys="$keys" -v rounds="$rounds" '
FNR == 1 { side++ }
/^BenchmarkLookup\/impl=/ {
	name = $1; sub(/^BenchmarkLookup\/impl=/, "", name); sub(/[\/-].*$/, "", name)
	if (name == "null") name = "loop"
	for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") { sum[side, name] += $i; n[side, name]++ }
}
END {
	split("loop," adapters, names, ",")
	printf "Lookup ns/op, insert-lookup, %d keys, GOMAXPROCS 1, mean of %d alternating rounds\n\n", keys, rounds
	printf "| adapter | cachebench run | bare loop | run / bare |\n|---|---:|---:|---:|\n"
	for (k = 1; k in names; k++) {
		a = names[k]
		if (!n[2, a] || !n[1, a]) { printf "| %s | missing | missing | |\n", a; continue }
		run = sum[2, a] / n[2, a]; bare = sum[1, a] / n[1, a]
		label = (a == "loop") ? "floor (null / loop)" : a
		printf "| %s | %.1f | %.1f | %.2f× |\n", label, run, bare, run / bare
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
