#!/usr/bin/env bash
# Latency against offered rate, open loop (docs/latency.md), for the
# committed results under results/latency/: map, shardcache, otter and
# fastcache in process; memcached and Redis on servers cachebench starts;
# the same in-process caches with forced collections; and the stall test's
# figures. Then rebuilds results/latency/README.md and its charts. Run it
# on a quiet machine: every figure is a latency.
#   scripts/latency-sweep.sh          # the real figures (about 25 minutes)
#   TINY=1 scripts/latency-sweep.sh   # a quick check that it works, into a temp dir
#   COUNT=1 DUR=3 scripts/latency-sweep.sh   # fewer repetitions, shorter passes
set -euo pipefail
cd "$(dirname "$0")/.."
go build -buildvcs=true -o /tmp/cachebench ./cmd/cachebench
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr 'A-Z' 'a-z')
tag="${cpu}-$(nproc)c"
out=results/latency
# Sizes: DURATION per pass; every rate gets rate x DURATION operations at
# most, so --ops is the highest rate times DURATION.
keys=1000000 count=${COUNT:-3} dur=${DUR:-10} memrates=10k,50k,100k,250k,500k,1M netrates=1k,5k,10k,25k,50k,100k
memops=10000000 netops=1000000 gckeys=2000000 gcops=1000000
if [ "${TINY:-0}" = 1 ]; then
	out=$(mktemp -d)
	# 50,000 keys: memcached needs a budget of 2 MiB at least.
	keys=50000 count=1 dur=1 memrates=10k,50k netrates=1k,5k memops=50000 netops=5000 gckeys=20000 gcops=20000
fi
mkdir -p "$out"
common=(--count "$count" --cpu 1 --duration "${dur}s" --progress never --format json)
# A run in which an adapter failed exits 1 and still writes its result:
# go on with the others, and exit 1 at the end.
status=0

/tmp/cachebench run --adapters map,shardcache,otter,fastcache --workload get-or-set/zipf --keys "$keys" --ops "$memops" \
	--rate "$memrates" --slo p99=100us "${common[@]}" -o "$out/${tag}-memory-get-or-set-zipf.json" || status=1

if command -v memcached >/dev/null && command -v redis-server >/dev/null; then
	# 64-1024-byte values (get-or-set's default) at --capacity 0.1: each
	# server is given the run's memory budget.
	/tmp/cachebench run --adapters memcached,redis --workload get-or-set/zipf --keys "$keys" --ops "$netops" \
		--rate "$netrates" --slo p99=1ms --conns-per-worker 4 "${common[@]}" -o "$out/${tag}-network-get-or-set-zipf.json" || status=1
else
	echo "latency-sweep: memcached or redis-server not on PATH: no network figures" >&2
fi

# Collections under load: a full collection forced every second at a fixed
# rate, beside the natural ones; the time series shows each as a spike.
/tmp/cachebench run --adapters map,shardcache,otter,fastcache --workload get-or-set/zipf --keys "$gckeys" --ops "$gcops" \
	--rate 50k --gc-every 1s --interval 250ms "${common[@]}" -o "$out/${tag}-memory-gc-every-1s.json" || status=1

# The stall test's figures: closed loop, open loop corrected and
# uncorrected, against the schedule's prediction.
{
	echo "# TestStall, $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) logical cores"
	echo "# load average at the start: $(cut -d" " -f1-3 /proc/loadavg)"
	echo "# go test ./internal/workloads/runner -run TestStall -count 1 -v"
	go test ./internal/workloads/runner -run 'TestStall$' -count 1 -v
} >"$out/${tag}-stall.txt" || status=1

/tmp/cachebench report "$out"
echo "latency-sweep: results in $out"
exit "$status"
