#!/usr/bin/env bash
# Refreshes results/ for the machine this runs on: a default run, a run at
# GOMAXPROCS 1 and 2 with the hit-ratio workloads, the file stores, then
# rebuilds results/README.md. Run it on a quiet machine.
#   scripts/refresh-results.sh            # everything but gc-pause
#   GCPAUSE=1 scripts/refresh-results.sh  # also the 20M-entry gc-pause run (long)
#   HITRATIO=1 scripts/refresh-results.sh # also the hit-ratio lab: real traces, synthetic ones
set -euo pipefail
cd "$(dirname "$0")/.."
# -tags lmdb: the file results include LMDB; -buildvcs=true: results record
# the revision even where GOFLAGS turns stamping off.
go build -buildvcs=true -tags lmdb -o /tmp/cachebench ./cmd/cachebench
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr 'A-Z' 'a-z')
cores=$(nproc)
tag="${cpu}-${cores}c"
/tmp/cachebench run --cpu 1,2 --format json -o "results/${tag}-memory-insert-lookup.json"
/tmp/cachebench run --workload get-or-set/hotcold,get-or-set/zipf --adapters memory --count 3 --cpu 1 \
	--format json -o "results/${tag}-memory-get-or-set.json"
/tmp/cachebench run --adapters file,map --workload insert-lookup --cpu 1 --format json \
	-o "results/${tag}-file-insert-lookup.json"
# The network caches against in-process ones at equal memory (needs memcached, redis-server).
if command -v memcached >/dev/null && command -v redis-server >/dev/null; then
	/tmp/cachebench run --adapters network,shardcache,fastcache,freecache,otter --workload get-or-set/umem --count 3 --cpu 1 \
		--format json -o "results/${tag}-network-get-or-set-umem.json"
fi
# Typed vs text float-vector reads (the group vectors), kept beside the other typed figures.
/tmp/cachebench run --workload read-vector --count 5 --format json -o "results/typed/${tag}-read-vector.json"
/tmp/cachebench report "results/typed/${tag}-read-vector.json" --format markdown >"results/typed/${tag}-read-vector.md"
if [ "${GCPAUSE:-0}" = 1 ]; then
	/tmp/cachebench gc-pause --format json -o "results/${tag}-gc-pause.json"
fi
if [ "${HITRATIO:-0}" = 1 ]; then
	/tmp/cachebench hitratio --suite real --repeat 3 --jobs 2 --progress never --format json -o results/hitratio/real.json --charts results/hitratio/real
	/tmp/cachebench hitratio --from results/hitratio/real.json --format markdown -o results/hitratio/real.md
	synth=$(mktemp -d)
	args=()
	for k in zipf loop web shift mix; do
		/tmp/cachebench trace gen --kind "$k" --alpha 0.9 --requests 1000000 --keys 100000 -o "$synth/$k.oracleGeneral"
		args+=(--trace "$synth/$k.oracleGeneral")
	done
	/tmp/cachebench hitratio "${args[@]}" --repeat 3 --adapters bigcache,fastcache,freecache,otter,ristretto,shardcache,lru,arc,theine,s3fifo,sieve \
		--jobs 2 --progress never --format json -o results/hitratio/synthetic.json --charts results/hitratio
	/tmp/cachebench hitratio --from results/hitratio/synthetic.json --format markdown -o results/hitratio/synthetic.md
	rm -rf "$synth"
fi
/tmp/cachebench report results
