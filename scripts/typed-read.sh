#!/usr/bin/env bash
# The typed-read comparison (mmapstore typed values): a 32-element float
# vector per key, read and summed, stored as a typed []float64 in
# mmapstore, as text in mmapstore and in a map[string]string (parsed with
# strconv on every read), and as a map[string][]float64. Runs
# TestTypedReadTable (internal/engine/mmapstore/typedread_test.go): ROUNDS
# rounds of one pass over KEYS keys per store, the order rotated each
# round, and writes the table with the machine and load to OUT.
#   scripts/typed-read.sh                           # 1,000,000 keys, 10 rounds
#   KEYS=100000 ROUNDS=5 OUT=/tmp/t.md scripts/typed-read.sh
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${KEYS:-1000000}
rounds=${ROUNDS:-10}
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
slug=$(echo "$cpu" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-' | sed 's/--*/-/g; s/-$//')-$(nproc)c
out=${OUT:-results/typed/$slug.md}
mkdir -p "$(dirname "$out")"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
MMAPSTORE_TYPED_OUT=$table MMAPSTORE_TYPED_KEYS=$keys MMAPSTORE_TYPED_ROUNDS=$rounds \
	go test -count 1 -run '^TestTypedReadTable$' -timeout 30m ./internal/engine/mmapstore/
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "# Typed reads: a 32-element float vector per key, read and summed"
	echo
	echo "Measured $(date -u +%Y-%m-%d) by scripts/typed-read.sh (TestTypedReadTable) at $(git rev-parse --short HEAD)"
	echo "on $cpu, $(nproc) logical cores, $(go version | cut -d' ' -f3-4), $(uname -sr)."
	echo "Load average before/after: $load0 / $load1: the machine was shared with other builds and"
	echo "tests, so absolute ns/read are noisy; the ratios are taken within each round (the four"
	echo "stores measured back to back, their order rotated), which is what to quote."
	echo
	cat "$table"
	echo
	echo "One pass = every key once in a shuffled order (the request keys laid out in that order),"
	echo "single goroutine, warm page cache; every sum is checked against the value's formula."
	echo "The text is parsed over the stored bytes without copying (no allocation), so text is"
	echo "charged for parsing only. Allocations are runtime.MemStats.Mallocs per read over a pass."
} >"$out"
echo "wrote $out"
