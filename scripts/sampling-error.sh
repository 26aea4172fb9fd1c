#!/usr/bin/env bash
# The error of sampled hit-ratio replays (`cachebench hitratio --sample`)
# against the exact replay of the same traces: every vendored trace of at
# least MIN_OBJECTS objects (default 100,000; `cachebench trace stats
# --vendored` lists them) with ADAPTERS, and a synthetic zipf trace of
# REQUESTS requests over KEYS keys with SYN_ADAPTERS, each at RATES and
# SEEDS (one sample per seed). Hit-ratio replays are deterministic, so a
# busy machine changes their time, never their figures. Writes a markdown
# report with the date, the CPU and the commands to OUT (stdout when unset).
#   scripts/sampling-error.sh                                  # 100M-request synthetic trace: about an hour on 2 cores
#   REQUESTS=2000000 KEYS=200000 MIN_OBJECTS=250000 scripts/sampling-error.sh   # a quick check
#   OUT=results/hitratio/sampling.md scripts/sampling-error.sh
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${REQUESTS:-100000000}
keys=${KEYS:-10000000}
min_objects=${MIN_OBJECTS:-100000}
# A rate max:N is a fixed-size sample of at most N objects (--sample-max N).
rates=${RATES:-0.1 0.01 0.001 max:20000}
seeds=${SEEDS:-1 2 3}
adapters=${ADAPTERS:-lru,s3fifo,shardcache,otter}
syn_adapters=${SYN_ADAPTERS:-lru,s3fifo}
capacity=${CAPACITY:-0.01,0.02,0.05,0.1,0.2}
syn_capacity=${SYN_CAPACITY:-0.01,0.05,0.2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampling-error.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cachebench" ./cmd/cachebench
cb="$tmp/cachebench"

"$cb" trace stats --vendored --format json -o "$tmp/stats.json"
vendored=$(python3 - "$tmp/stats.json" "$min_objects" <<'EOF'
import json, sys
for s in json.load(open(sys.argv[1])):
    if s["distinct"] >= int(sys.argv[2]):
        print(s["name"])
EOF
)
syn="$tmp/zipf.oracleGeneral"
"$cb" trace gen --kind zipf --requests "$requests" --keys "$keys" -o "$syn" 2>/dev/null

# run NAME TRACE ADAPTERS CAPACITY [FLAGS...]: one sweep, into $tmp/NAME.json.
run() {
	local name=$1 tr=$2 ad=$3 caps=$4
	shift 4
	"$cb" hitratio --trace "$tr" --adapters "$ad" --capacity "$caps" --jobs 1 --progress never \
		--format json -o "$tmp/$name.json" --dir "$tmp" "$@"
}
# sample RATE: the flags of one rate.
sample() {
	case $1 in
	max:*) echo --sample-max "${1#max:}" ;;
	*) echo --sample "$1" ;;
	esac
}
cases=()
for tr in $vendored; do
	key=${tr//\//_}
	run "$key-exact" "$tr" "$adapters" "$capacity"
	for r in $rates; do
		for s in $seeds; do
			run "$key-$r-$s" "$tr" "$adapters" "$capacity" $(sample "$r") --sample-seed "$s"
		done
	done
	cases+=("$key")
done
run syn-exact "$syn" "$syn_adapters" "$syn_capacity"
for r in $rates; do
	for s in $seeds; do
		run "syn-$r-$s" "$syn" "$syn_adapters" "$syn_capacity" $(sample "$r") --sample-seed "$s"
	done
done
cases+=(syn)

report() {
	echo "# The error of sampled hit-ratio replays"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (its \`model name\`), $(nproc) logical cores, $(go env GOVERSION | sed 's/^go/Go /'), by"
	echo "\`scripts/sampling-error.sh\` (REQUESTS=$requests KEYS=$keys MIN_OBJECTS=$min_objects RATES=\"$rates\" SEEDS=\"$seeds\"), which runs, per trace:"
	echo
	echo '```'
	echo "cachebench hitratio --trace TRACE --adapters A --capacity C --jobs 1 --format json -o exact.json"
	echo "cachebench hitratio --trace TRACE --adapters A --capacity C --jobs 1 --format json -o RATE-SEED.json --sample RATE --sample-seed SEED"
	echo "cachebench hitratio --trace TRACE --adapters A --capacity C --jobs 1 --format json -o max-N-SEED.json --sample-max N --sample-seed SEED"
	echo '```'
	echo
	echo "with A = $adapters and C = $capacity on the vendored traces of at least $min_objects objects,"
	echo "and A = $syn_adapters and C = $syn_capacity on \`cachebench trace gen --kind zipf --requests $requests --keys $keys\`."
	echo "OPT is in every sweep. The error of a cell is its sampled object hit ratio minus the exact one,"
	echo "in points; \"stated\" is the standard error the sampled cell gave itself; \"within 2σ\" is the share of"
	echo "cells whose error is at most twice their stated standard error. Cells that ran in only one of the"
	echo "two replays (an adapter that cannot be configured at the scaled size, n/c) are counted apart."
	echo "A rate max:N is a fixed-size sample of at most N objects; its rate is the mean final rate."
	echo
	python3 - "$tmp" "$rates" "$seeds" "${cases[@]}" <<'EOF'
import json, sys, statistics as st
tmp, rates, seeds, cases = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
def rows(path):
    r = json.load(open(path))
    t = r["traces"][0]
    return t, {(x["adapter"], x["capacity"]): x for x in t["rows"] if not x.get("unconfigurable") and not x.get("failed")}
print("| trace | requests | objects | rate | sampled objects (mean) | cells | n/c | mean abs error | max abs error | mean stated σ | within 2σ |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
per_adapter = {}
for c in cases:
    et, exact = rows(f"{tmp}/{c}-exact.json")
    name = et["name"] if c != "syn" else "zipf (trace gen)"
    for r in rates:
        errs, sds, nc, objs, fr = [], [], 0, [], []
        for s in seeds:
            t, smp = rows(f"{tmp}/{c}-{r}-{s}.json")
            objs.append(t["distinct"])
            fr.append(t["sample"]["final_rate"])
            for k, e in exact.items():
                x = smp.get(k)
                if x is None:
                    nc += 1
                    continue
                d = 100 * (x["hit_ratio"] - e["hit_ratio"])
                sd = 100 * x["sample"]["hit_ratio_stderr"]
                errs.append(d)
                sds.append(sd)
                per_adapter.setdefault((name, r.split(" ")[0], k[0]), []).append(abs(d))
        if r.startswith("max:"):
            r = f"{r} ({st.mean(fr):.3g})"
        if not errs:
            print(f"| {name} | {et['requests']:,} | {et['distinct']:,} | {r} | {st.mean(objs):,.0f} | 0 | {nc} | - | - | - | - |")
            continue
        within = sum(1 for d, sd in zip(errs, sds) if abs(d) <= 2 * sd + 1e-9) / len(errs)
        print(f"| {name} | {et['requests']:,} | {et['distinct']:,} | {r} | {st.mean(objs):,.0f} | {len(errs)} | {nc} | "
              f"{st.mean(abs(d) for d in errs):.2f} | {max(abs(d) for d in errs):.2f} | {st.mean(sds):.2f} | {100*within:.0f}% |")
print()
print("Mean absolute error by adapter, in points (over the capacities and seeds; - where the adapter was not in the sweep):")
print()
adapters = sorted({a for (_, _, a) in per_adapter}, key=lambda a: (a != "OPT", a))
print("| trace | rate | " + " | ".join(adapters) + " |")
print("|---|---:|" + "---:|" * len(adapters))
seen = []
for (n, r, _) in per_adapter:
    if (n, r) not in seen:
        seen.append((n, r))
for n, r in seen:
    cells = [f"{st.mean(per_adapter[(n, r, a)]):.2f}" if (n, r, a) in per_adapter else "-" for a in adapters]
    print(f"| {n} | {r} | " + " | ".join(cells) + " |")
EOF
}
if [ -n "${OUT:-}" ]; then
	report >"$OUT"
else
	report
fi
