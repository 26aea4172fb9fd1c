#!/usr/bin/env bash
# Measures the hit-ratio lab's replay speed side by side with libCacheSim's
# cachesim (the field's reference simulator) on the same trace, and checks
# that both give the same hit ratios. CI never runs it: without a cachesim
# it says so and exits 0.
#
# cachesim comes from CACHESIM (a built binary), or is built from a copy of
# libCacheSim's source at LIBCACHESIM_SRC: a source tree, or a git
# directory (a bare mirror is extracted with git archive). The build needs
# cmake, a C compiler, glib and zstd (apt-get install cmake libglib2.0-dev
# libzstd-dev) and is kept in CACHESIM_BUILD (default
# ~/.cache/cachebench-cachesim) for the next run. Neither libCacheSim's code
# nor its binary is ever written into this repository.
#
# The trace is a seeded zipf trace (cachebench trace gen) as plain
# oracleGeneral, read by both from the page cache (warmed first). Each
# round runs cachebench hitratio --jobs 1 and cachesim --num-thread 1 one
# after the other (A B A B), each timed by /usr/bin/time; caches are bounded
# by entries (cachesim --ignore-obj-size 1), so both report the object hit
# ratio of the same policies at the same sizes.
#
# Both do the same work, counted the same way. cachebench hitratio always
# computes Belady's OPT at every size, so cachesim runs its belady at every
# size too (from the trace's next-access fields, which trace gen writes),
# and OPT counts as one policy on both sides: requests per second per core
# = requests x ((policies + 1) x sizes) / the process's CPU seconds (user +
# sys), the median over the rounds. cachebench's other work, rewriting the
# trace into dense IDs first (normalize) and timing its reader, is in its
# CPU time and counts as no cell. The two OPTs may differ slightly:
# cachebench's never admits an object requested later than every cached
# one, libCacheSim's admits every miss and evicts the furthest, so
# cachebench's is at least as high; the policies must agree to 4 digits.
#
#   LIBCACHESIM_SRC=/work/.mirror/1a1a11a+libCacheSim/repo scripts/cachesim-speed.sh
#   REQUESTS=200000 KEYS=20000 ROUNDS=1 LIBCACHESIM_SRC=... scripts/cachesim-speed.sh  # quick check
#   OUT=results/hitratio/cachesim-speed.md LIBCACHESIM_SRC=... scripts/cachesim-speed.sh
#
# REQUESTS (10000000), KEYS (1000000), ALPHA (1.0), SEED (1), POLICIES
# (lru,sieve), SIZES (entry counts, 10000,100000), ROUNDS (3); OUT also
# writes the report (markdown) to that file.
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${REQUESTS:-10000000}
keys=${KEYS:-1000000}
alpha=${ALPHA:-1.0}
seed=${SEED:-1}
policies=${POLICIES:-lru,sieve}
sizes=${SIZES:-10000,100000}
rounds=${ROUNDS:-3}
build=${CACHESIM_BUILD:-${XDG_CACHE_HOME:-$HOME/.cache}/cachebench-cachesim}
cachesim=${CACHESIM:-}
revision=unknown

if [ -z "$cachesim" ] && [ -x "$build/bin/cachesim" ] && [ -z "${LIBCACHESIM_SRC:-}" ]; then
	cachesim=$build/bin/cachesim
fi
if [ -z "$cachesim" ]; then
	src=${LIBCACHESIM_SRC:-}
	if [ -z "$src" ]; then
		echo "cachesim-speed: skipped: set LIBCACHESIM_SRC to a libCacheSim source tree or git directory, or CACHESIM to a built cachesim" >&2
		exit 0
	fi
	for tool in cmake cc git pkg-config; do
		command -v "$tool" >/dev/null || { echo "cachesim-speed: $tool is missing (apt-get install cmake libglib2.0-dev libzstd-dev)" >&2; exit 2; }
	done
	pkg-config --exists glib-2.0 libzstd || { echo "cachesim-speed: glib or zstd headers are missing (apt-get install libglib2.0-dev libzstd-dev)" >&2; exit 2; }
	mkdir -p "$build"
	if [ -f "$src/CMakeLists.txt" ]; then
		tree=$src
		revision=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
	else
		revision=$(git --git-dir "$src" rev-parse HEAD)
		rm -rf "$build/src" && mkdir -p "$build/src"
		# File by file: a mirror may lack its largest files (data/), which
		# the build does not need and git archive would stop at.
		git --git-dir "$src" ls-tree -r HEAD | while read -r mode type obj path; do
			[ "$type" = blob ] && git --git-dir "$src" cat-file -e "$obj" 2>/dev/null || continue
			mkdir -p "$build/src/$(dirname "$path")"
			git --git-dir "$src" cat-file blob "$obj" >"$build/src/$path"
			if [ "$mode" = 100755 ]; then chmod +x "$build/src/$path"; fi
		done
		tree=$build/src
	fi
	if [ ! -x "$build/bin/cachesim" ] || [ "$(cat "$build/revision" 2>/dev/null)" != "$revision" ]; then
		echo "cachesim-speed: building cachesim $revision in $build (minutes)" >&2
		cmake -S "$tree" -B "$build/cmake" -DCMAKE_BUILD_TYPE=Release >"$build/cmake.log" 2>&1 || { tail -20 "$build/cmake.log" >&2; exit 1; }
		cmake --build "$build/cmake" --target cachesim -j "$(nproc)" >>"$build/cmake.log" 2>&1 || { tail -20 "$build/cmake.log" >&2; exit 1; }
		mkdir -p "$build/bin"
		cp "$(find "$build/cmake" -name cachesim -type f -perm -u+x | head -1)" "$build/bin/cachesim"
		echo "$revision" >"$build/revision"
	fi
	cachesim=$build/bin/cachesim
fi
[ "$revision" = unknown ] && [ -f "$build/revision" ] && [ "$cachesim" = "$build/bin/cachesim" ] && revision=$(cat "$build/revision")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cachebench" ./cmd/cachebench
trace=$tmp/zipf.oracleGeneral
"$tmp/cachebench" trace gen --kind zipf --alpha "$alpha" --seed "$seed" --requests "$requests" --keys "$keys" -o "$trace" 2>/dev/null
cat "$trace" >/dev/null # into the page cache, for both

cb_cmd=(hitratio --trace "$trace" --adapters "$policies" --capacity "$sizes" --jobs 1 --format json --progress never)
cs_args=("$trace" oracleGeneral "$policies,belady" "$sizes" --ignore-obj-size 1 --num-thread 1)
cut -d' ' -f1-3 /proc/loadavg >"$tmp/load.start"
for r in $(seq "$rounds"); do
	echo "cachesim-speed: round $r/$rounds" >&2
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/cb.time.$r" "$tmp/cachebench" "${cb_cmd[@]}" -o "$tmp/cb.$r.json"
	(cd "$tmp" && /usr/bin/time -f '%e %U %S %M' -o "$tmp/cs.time.$r" "$cachesim" "${cs_args[@]}" >"$tmp/cs.$r.txt" 2>"$tmp/cs.$r.err") ||
		{ cat "$tmp/cs.$r.err" >&2; exit 1; }
done

python3 - "$tmp" "$rounds" "$requests" "$keys" "$alpha" "$policies" "$sizes" "$revision" <<'PY' | tee "${OUT:-/dev/null}"
import json, os, re, statistics, sys, datetime, platform
tmp, rounds, requests, keys, alpha, policies, sizes, revision = sys.argv[1:]
rounds, requests = int(rounds), int(requests)
pols, caps = policies.split(","), sizes.split(",")
cells = (len(pols) + 1) * len(caps)  # OPT / belady on both sides

def times(tool):
    out = []
    for r in range(1, rounds + 1):
        e, u, s, m = open(f"{tmp}/{tool}.time.{r}").read().split()[-4:]
        out.append((float(e), float(u) + float(s), int(m)))
    return out

cb = {}
for row in json.load(open(f"{tmp}/cb.1.json"))["traces"][0]["rows"]:
    cb[(row["adapter"], row["capacity"])] = row["hit_ratio"]
cs = {}
pat = re.compile(r"\s(\S+)\s+cache size\s+(\d+)\S*,\s*(\d+) req, miss ratio ([0-9.]+)")
for line in open(f"{tmp}/cs.1.txt"):
    m = pat.search(line)
    if m:
        name = m.group(1).lower()
        cs[("OPT" if name == "belady" else name, m.group(2))] = 1 - float(m.group(4))

cpu = open("/proc/cpuinfo").read()
model = re.search(r"model name\s*:\s*(.*)", cpu)
print(f"# cachebench hitratio and libCacheSim cachesim, side by side\n")
print(f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
print(f"- CPU: {model.group(1) if model else platform.processor()}")
print(f"- trace: zipf alpha {alpha}, {requests:,} requests over {int(keys):,} keys (cachebench trace gen), plain oracleGeneral in the page cache")
print(f"- cachebench: `cachebench hitratio --trace T --adapters {policies} --capacity {sizes} --jobs 1 --format json` (computes OPT at every size)")
print(f"- cachesim (libCacheSim {revision}): `cachesim T oracleGeneral {policies},belady {sizes} --ignore-obj-size 1 --num-thread 1`")
print(f"- cells: ({len(pols)} policies + OPT) x {len(caps)} sizes = {cells} on both sides (cachebench's OPT, cachesim's belady); cachebench's normalize pass is in its CPU time")
print(f"- load average (1, 5, 15 min) before the first round: {open(f'{tmp}/load.start').read().strip()} on {os.cpu_count()} logical CPUs (a figure near or above the CPU count means a busy machine: the timings are then indicative only)")
print(f"- {rounds} rounds, run alternately; figures are medians\n")
print("## Hit ratios (object, entry-bounded caches)\n")
print("| policy | size | cachebench | cachesim | same to 4 digits |\n|---|---:|---:|---:|---|")
same_all = True
for p in pols + ["OPT"]:
    for c in caps:
        a, b = cb.get((p, c)), cs.get((p, c))
        same = a is not None and b is not None and round(a, 4) == round(b, 4)
        fa = "missing" if a is None else f"{a:.4f}"
        fb = "missing" if b is None else f"{b:.4f}"
        if p == "OPT":
            # cachebench's OPT may refuse an object (bypass), belady admits
            # every miss: at least as high is what must hold.
            ok = a is not None and b is not None and round(a, 4) >= round(b, 4)
            verdict = "yes" if same else ("no: higher (bypass)" if ok else "NO: lower")
        else:
            ok, verdict = same, "yes" if same else "NO"
        same_all &= ok
        print(f"| {p} | {c} | {fa} | {fb} | {verdict} |")
print("\n## Speed\n")
print("| tool | wall s | CPU s | peak RSS MiB | requests/s per core |\n|---|---:|---:|---:|---:|")
rate = {}
for tool, name in (("cb", "cachebench"), ("cs", "cachesim")):
    t = times(tool)
    wall = statistics.median(x[0] for x in t)
    cpus = statistics.median(x[1] for x in t)
    rss = statistics.median(x[2] for x in t) / 1024
    rate[tool] = requests * cells / max(cpus, 1e-9)
    print(f"| {name} | {wall:.2f} | {cpus:.2f} | {rss:.0f} | {rate[tool]/1e6:.1f}M |")
ratio = rate["cb"] / rate["cs"]
print(f"\ncachebench / cachesim, requests/s per core: {ratio:.2f}x (target: at least 2x with the same hit ratios: {'met' if ratio >= 2 and same_all else 'NOT met'})")
PY
