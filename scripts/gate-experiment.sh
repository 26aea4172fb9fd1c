#!/usr/bin/env bash
# Measures how the regression gate (scripts/ci-gate.sh) behaves on this
# machine, as it is (shared, noisy): per trial it runs the CI quick suite
# (plus the test-only map-slow adapter) four times and compares
#   OLD vs NEW-A  A/A, no change: any gate failure is a false alarm
#   OLD vs NEW-S  map-slow given CACHEBENCH_SLOWDOWN_NS = 25% of its lookup time
#   OLD vs NEW-X  map-slow given one extra allocation per op
# with the gate's settings (normalised to map). The A/A pair is also
# compared on absolute times with the same threshold, to show what the
# normalisation buys.
#
# Usage: scripts/gate-experiment.sh [TRIALS] (default 20); WORK=dir keeps the files.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-20}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
export CI_GATE_ADAPTERS=${CI_GATE_ADAPTERS:-map,map-slow,fastcache,freecache,bigcache,otter,syncmap}
THRESHOLD=${CI_GATE_THRESHOLD:-20%}
bin=$WORK/cachebench
go build -o "$bin" ./cmd/cachebench

suite() { # OUT [ENV=VAL...]
	local out=$1
	shift
	env "$@" scripts/ci-gate.sh run "$bin" "$out" 2>/dev/null
}
# gate OLD NEW: exit code of the gate (normalised).
gate() { CI_GATE_FORMAT=text scripts/ci-gate.sh compare "$bin" "$1" "$2" >"$3" 2>/dev/null && echo 0 || echo $?; }
# flagged FILE ADAPTER METRIC PHASE: does the table flag that row?
flagged() {
	awk -v a="$2" -v m="$3" -v p="$4" '
		/ is better$/ { metric = $1; sub(/,$/, "", metric) }
		metric == m && $1 == a && $3 == p && /REGRESSION/ { found = 1 }
		END { exit !found }' "$1"
}

# Calibrate the slowdown once: 25% of map-slow's median lookup time.
suite "$WORK/calib.json"
lookup_ns=$("$bin" report "$WORK/calib.json" --format gobench |
	awk '/^BenchmarkLookup\/impl=map-slow\// { for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") print $i }' |
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
slow_ns=$(awk -v x="$lookup_ns" 'BEGIN { printf "%d", x * 0.25 + 0.5 }')
echo "map-slow median lookup ${lookup_ns} ns/op -> injecting ${slow_ns} ns per op (25%)"
echo "suite: adapters $CI_GATE_ADAPTERS, keys ${CI_GATE_KEYS:-50000}, count ${CI_GATE_COUNT:-10}, cpu 1; gate: --normalize map --threshold $THRESHOLD"

aa_alarm=0 aa_abs_alarm=0 slow_caught=0 slow_other=0 alloc_caught=0
start=$(date +%s)
for t in $(seq 1 "$TRIALS"); do
	d=$WORK/t$t
	mkdir -p "$d"
	suite "$d/old.json" CACHEBENCH_SLOWDOWN_NS=0
	suite "$d/new-a.json" CACHEBENCH_SLOWDOWN_NS=0
	suite "$d/new-s.json" CACHEBENCH_SLOWDOWN_NS="$slow_ns"
	suite "$d/new-x.json" CACHEBENCH_SLOWDOWN_ALLOCS=1
	aa=$(gate "$d/old.json" "$d/new-a.json" "$d/aa.txt")
	abs=$("$bin" compare --threshold "$THRESHOLD" --min-samples 10 "$d/old.json" "$d/new-a.json" >"$d/aa-abs.txt" 2>/dev/null && echo 0 || echo $?)
	sl=$(gate "$d/old.json" "$d/new-s.json" "$d/slow.txt")
	al=$(gate "$d/old.json" "$d/new-x.json" "$d/alloc.txt")
	[ "$aa" != 0 ] && aa_alarm=$((aa_alarm + 1))
	[ "$abs" != 0 ] && aa_abs_alarm=$((aa_abs_alarm + 1))
	caught=no
	if [ "$sl" = 1 ] && flagged "$d/slow.txt" map-slow "ns/op" lookup; then
		caught=yes
		slow_caught=$((slow_caught + 1))
	fi
	# Regressions reported on other adapters in the slowdown pair are
	# false alarms too.
	others=$(grep REGRESSION "$d/slow.txt" | grep -vc '^map-slow' || true)
	[ "$others" -gt 0 ] && slow_other=$((slow_other + 1))
	acaught=no
	if [ "$al" = 1 ] && flagged "$d/alloc.txt" map-slow "allocs/op" lookup && flagged "$d/alloc.txt" map-slow "allocs/op" insert; then
		acaught=yes
		alloc_caught=$((alloc_caught + 1))
	fi
	ratio=$(awk '/^ns\/op/ { s = 1 } s && $1 == "map-slow" && $3 == "lookup" { print $5 " -> " $6 " " $7; exit }' "$d/slow.txt")
	echo "trial $t: A/A exit $aa (absolute times: exit $abs); 25% slowdown exit $sl caught=$caught (map-slow lookup ÷ map $ratio), other adapters flagged: $others; +1 alloc/op exit $al caught=$acaught"
done
echo
echo "== summary over $TRIALS trials ($(($(date +%s) - start)) s), files in $WORK"
echo "A/A false alarms, gate (normalised, $THRESHOLD):   $aa_alarm/$TRIALS"
echo "A/A false alarms, absolute times, same threshold: $aa_abs_alarm/$TRIALS"
echo "25% slowdown of map-slow caught:                  $slow_caught/$TRIALS"
echo "slowdown pairs with another adapter flagged:      $slow_other/$TRIALS"
echo "+1 allocation per op caught (insert and lookup):  $alloc_caught/$TRIALS"
