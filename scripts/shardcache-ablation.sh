#!/usr/bin/env bash
# The ablation of shardcache's policy: replays the real suite and the five
# synthetic traces with shardcache alone, once with the policy as it is and
# once per mechanism turned off (a binary built with the "ablation" tag
# reads CACHEBENCH_ABLATE; see internal/engine/shardcache/ablation_env.go), and
# scores every replay against the committed peers of results/hitratio
# (scripts/shardcache-score.py). Hit ratios are deterministic, so the
# machine's load does not change the figures. Prints the markdown table.
#   scripts/shardcache-ablation.sh                      # every mechanism
#   VARIANTS="climber ghost" scripts/shardcache-ablation.sh
#   JOBS=1 DIR=/tmp/abl scripts/shardcache-ablation.sh  # keep the replays in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
variants=${VARIANTS-$(grep -o '"[a-z-]*": *abl' internal/engine/shardcache/ablation_env.go | cut -d'"' -f2 | tr '\n' ' ')}
if [ -z "${VARIANTS+set}" ] && [ -z "${variants// }" ]; then
	echo "shardcache-ablation: no mechanism names found in internal/engine/shardcache/ablation_env.go" >&2
	exit 2
fi
jobs=${JOBS:-2}
dir=${DIR:-$(mktemp -d)}
mkdir -p "$dir"
go build -tags ablation -o "$dir/cachebench" ./cmd/cachebench
for k in zipf loop web shift mix; do
	[ -f "$dir/$k.oracleGeneral" ] ||
		"$dir/cachebench" trace gen --kind "$k" --alpha 0.9 --requests 1000000 --keys 100000 -o "$dir/$k.oracleGeneral" 2>/dev/null
done
runs=()
for v in base $variants; do
	abl=$v
	[ "$v" = base ] && abl=
	if [ ! -f "$dir/$v-syn.json" ]; then
		CACHEBENCH_ABLATE=$abl "$dir/cachebench" hitratio --suite real --adapters shardcache --jobs "$jobs" \
			--progress never --format json -o "$dir/$v-real.json"
		CACHEBENCH_ABLATE=$abl "$dir/cachebench" hitratio --adapters shardcache --jobs "$jobs" --progress never \
			--trace "$dir/zipf.oracleGeneral" --trace "$dir/loop.oracleGeneral" --trace "$dir/web.oracleGeneral" \
			--trace "$dir/shift.oracleGeneral" --trace "$dir/mix.oracleGeneral" --format json -o "$dir/$v-syn.json"
	fi
	runs+=("$v=$dir/$v-real.json,$dir/$v-syn.json")
	echo "replayed $v" >&2
done
scripts/shardcache-score.py "${runs[@]}"
