#!/usr/bin/env bash
# ab-speed.sh OLD NEW [ROUNDS]: alternate two cachebench binaries ROUNDS
# times (default 5), each process running insert-lookup for shardcache,
# fastcache and map, and print per-process ratios of shardcache's mean time
# to each peer's, for every phase, with the median over the rounds.
# Ratios are taken inside one process, so the host's drift between
# processes cancels; alternation spreads what remains over both binaries.
# Environment: KEYS (default 1000000), COUNT (repetitions per process, 3),
# OUT (directory for the JSON files, a temporary one by default).
set -euo pipefail
old=${1:?usage: ab-speed.sh OLD NEW [ROUNDS]}
new=${2:?usage: ab-speed.sh OLD NEW [ROUNDS]}
rounds=${3:-5}
keys=${KEYS:-1000000}
count=${COUNT:-3}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
for i in $(seq 1 "$rounds"); do
	for side in old new; do
		bin=$old
		[ "$side" = new ] && bin=$new
		"$bin" run --adapters shardcache,fastcache,map --keys "$keys" --count "$count" \
			--progress never --format json -o "$out/$side-$i.json"
	done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def means(path):
    d = json.load(open(path))
    m = {}
    for x in d["measurements"]:
        ns = [s["ns_per_op"] for s in x["samples"]]
        m[(x["adapter"], x["phase"], x["procs"])] = sum(ns) / len(ns)
    return m
rows = {}
for side in ("old", "new"):
    for i in range(1, rounds + 1):
        m = means(f"{out}/{side}-{i}.json")
        for (a, ph, p), v in m.items():
            if a != "shardcache":
                continue
            for peer in ("fastcache", "map"):
                if (peer, ph, p) in m:
                    rows.setdefault((ph, p, peer, side), []).append(v / m[(peer, ph, p)])
            rows.setdefault((ph, p, "ns", side), []).append(v)
print(f"{'phase':8} {'P':>2} {'vs':10} {'old median':>11} {'new median':>11}  per round (old | new)")
for (ph, p, peer) in sorted({k[:3] for k in rows}):
    o, n = rows.get((ph, p, peer, "old"), []), rows.get((ph, p, peer, "new"), [])
    f = (lambda v: f"{v:.1f}") if peer == "ns" else (lambda v: f"{v:.3f}")
    print(f"{ph:8} {p:>2} {peer:10} {f(statistics.median(o)):>11} {f(statistics.median(n)):>11}  "
          + " ".join(f(v) for v in o) + " | " + " ".join(f(v) for v in n))
PY
echo "JSON files: $out"
