#!/usr/bin/env bash
# Measures how the regression gate (scripts/ci-gate.sh) behaves on this
# machine as it is (shared, noisy). Per trial it runs the CI quick suite
# (plus the test-only map-slow adapter, built in with -tags slowdown: the map
# adapter with injected cost)
# four times, each as the gate runs it (one repetition per process, merged):
#   old    no injection
#   new-a  no injection            OLD vs NEW-A is an A/A pair: any failure is a false alarm
#   new-s  map-slow made about 25% slower: the Gets of a share of the keys also
#          look the key up in a second map (CACHEBENCH_SLOWDOWN_PERCENT), the
#          share calibrated by measuring
#   new-x  map-slow given one extra allocation per Get and Set
# then compares the pairs with the gate's settings (normalised to the
# reference adapter) at several minimum effects, and the A/A pair also on
# absolute times, to show what the normalisation buys.
#
# Usage: scripts/gate-experiment.sh [TRIALS] (default 20)
#   WORK=dir          keep the files there (default: a temp dir)
#   THRESHOLDS="..."  minimum effects to evaluate (default "15% 20% 25% 30%")
#   SLOW_PERCENT=p    extra lookups for p% of the keys, not calibrated (default:
#                     calibrated so that map-slow's lookups are 25% slower)
#   SLOW_NS=n         inject n ns of CPU work per op instead (CALIBRATE=1: find n
#                     by measuring, aiming at +25%; CPU work between memory-bound
#                     lookups costs more than its time, so this is erratic); the
#                     detail file gives the slowdown each trial really measured
#   EVAL_ONLY=1       skip the runs and re-evaluate the files in WORK
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-20}
WORK=${WORK:-$(mktemp -d)}
THRESHOLDS=${THRESHOLDS:-15% 20% 25% 30%}
mkdir -p "$WORK"
export CI_GATE_ADAPTERS=${CI_GATE_ADAPTERS:-map,map-slow,fastcache,freecache,bigcache,otter,syncmap}
bin=$WORK/cachebench
# map-slow is only in a binary built with the slowdown tag.
go build -tags slowdown -o "$bin" ./cmd/cachebench

suite() { # OUT [ENV=VAL...]
	local out=$1
	shift
	env "$@" scripts/ci-gate.sh run "$bin" "$out" 2>/dev/null
}
# gate THRESHOLD OLD NEW OUT: the gate's exit code; its table goes to OUT.
gate() {
	CI_GATE_THRESHOLD=$1 CI_GATE_FORMAT=text scripts/ci-gate.sh compare "$bin" "$2" "$3" >"$4" 2>/dev/null && echo 0 || echo $?
}
# flagged FILE ADAPTER METRIC PHASE: does the table flag that row?
flagged() {
	awk -v a="$2" -v m="$3" -v p="$4" '
		/ is better$/ { metric = $1; sub(/,$/, "", metric) }
		metric == m && $1 == a && $3 == p && /REGRESSION/ { found = 1 }
		END { exit !found }' "$1"
}

slowdown() { # FILE: map-slow's lookup over map's, the median of the repetitions
	"$bin" report "$1" --format gobench | awk '
		/^BenchmarkLookup\/impl=map\// { for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") m[++nm] = $i }
		/^BenchmarkLookup\/impl=map-slow\// { for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") s[++ns] = $i }
		END { for (i = 1; i <= nm && i <= ns; i++) print s[i] / m[i] }' |
		sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# calibrate ENV START UNIT MAX: three rounds of the suite with map-slow given
# ENV=n, n starting at START and scaled by target/observed after each, so
# that map-slow's lookup ends up about 25% slower than map's in the same
# run (calib0.json, the base ratio, must exist); prints the final n.
calibrate() {
	local env=$1 n=$2 unit=$3 max=$4 c effect
	for c in 1 2 3; do
		suite "$WORK/calib$c.json" "$env=$n" >&2
		effect=$(awk -v r="$(slowdown "$WORK/calib$c.json")" -v b="$base_ratio" 'BEGIN { print r / b - 1 }')
		echo "calibration $c: $env=$n ($unit): lookup +$(awk -v e="$effect" 'BEGIN { printf "%.1f", e * 100 }')%" | tee -a "$WORK/calibration.txt" >&2
		n=$(awk -v n="$n" -v e="$effect" -v max="$max" 'BEGIN { if (e < 0.01) e = 0.01; p = int(n * 0.25 / e + 0.5); if (p < 1) p = 1; if (p > max) p = max; print p }')
	done
	echo "$n"
}

if [ -z "${EVAL_ONLY:-}" ]; then
	: >"$WORK/calibration.txt"
	if [ -n "${SLOW_NS:-}" ]; then
		slow_env="CACHEBENCH_SLOWDOWN_NS=$SLOW_NS"
	elif [ -n "${SLOW_PERCENT:-}" ]; then
		slow_env="CACHEBENCH_SLOWDOWN_PERCENT=$SLOW_PERCENT"
	else
		suite "$WORK/calib0.json"
		base_ratio=$(slowdown "$WORK/calib0.json")
		if [ -n "${CALIBRATE:-}" ]; then
			# CPU work: it costs more than its own time between
			# memory-bound lookups (it stops the CPU from overlapping one
			# lookup's cache misses with the next's: 37 ns of spin made
			# lookups 55% slower), so start at 25% of the lookup time.
			start_ns=$("$bin" report "$WORK/calib0.json" --format gobench |
				awk '/^BenchmarkLookup\/impl=map-slow\// { for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") print $i }' |
				sort -g | awk '{ v[NR] = $1 } END { printf "%d", v[int((NR + 1) / 2)] * 0.25 + 0.5 }')
			slow_env="CACHEBENCH_SLOWDOWN_NS=$(calibrate CACHEBENCH_SLOWDOWN_NS "$start_ns" "ns of spin per op" 1000000)"
		else
			# Extra lookups for a share of the keys, starting at 10%.
			slow_env="CACHEBENCH_SLOWDOWN_PERCENT=$(calibrate CACHEBENCH_SLOWDOWN_PERCENT 10 "% of keys with an extra lookup" 100)"
		fi
	fi
	echo "slowdown injected: $slow_env (aimed at a 25% slower lookup unless given)" | tee -a "$WORK/calibration.txt"
	start=$(date +%s)
	for t in $(seq 1 "$TRIALS"); do
		d=$WORK/t$t
		mkdir -p "$d"
		suite "$d/old.json" CACHEBENCH_SLOWDOWN_NS=0
		suite "$d/new-a.json" CACHEBENCH_SLOWDOWN_NS=0
		suite "$d/new-s.json" "$slow_env"
		suite "$d/new-x.json" CACHEBENCH_SLOWDOWN_ALLOCS=1
		echo "trial $t measured ($(($(date +%s) - start)) s)"
	done
fi

cat "$WORK/calibration.txt"
echo "suite: adapters $CI_GATE_ADAPTERS, keys ${CI_GATE_KEYS:-50000}, count ${CI_GATE_COUNT:-10}, cpu 1;" \
	"gate: --normalize ${CI_GATE_REFERENCE:-fastcache}, exact allocs/op and B/op; $TRIALS trials, files in $WORK"
echo "A/A alarms: the A/A pair failed the gate; confirmed: so did the next trial's (what the CI gate, which re-measures before failing, would do)"
printf '%-9s %-18s %-18s %-22s %-20s %-18s %-22s %-18s\n' threshold "A/A alarms (gate)" "A/A confirmed" "A/A alarms (absolute)" "25% slowdown caught" "caught, confirmed" "slowdown: others hit" "+1 alloc/op caught"
for thr in $THRESHOLDS; do
	aa=0 abs=0 caught=0 others=0 alloc=0
	aa_hits=() slow_hits=()
	for t in $(seq 1 "$TRIALS"); do
		d=$WORK/t$t
		aa_hits[t]=0 slow_hits[t]=0
		if [ "$(gate "$thr" "$d/old.json" "$d/new-a.json" "$d/aa.txt")" != 0 ]; then
			aa=$((aa + 1)) aa_hits[t]=1
		fi
		code=$("$bin" compare --threshold "$thr" --min-samples 10 "$d/old.json" "$d/new-a.json" >"$d/aa-abs.txt" 2>/dev/null && echo 0 || echo $?)
		[ "$code" != 0 ] && abs=$((abs + 1))
		if [ "$(gate "$thr" "$d/old.json" "$d/new-s.json" "$d/slow.txt")" = 1 ] && flagged "$d/slow.txt" map-slow ns/op lookup; then
			caught=$((caught + 1)) slow_hits[t]=1
		fi
		# Other adapters flagged in the slowdown pair are false alarms too.
		if grep REGRESSION "$d/slow.txt" | grep -vq '^map-slow'; then
			others=$((others + 1))
		fi
		if [ "$(gate "$thr" "$d/old.json" "$d/new-x.json" "$d/alloc.txt")" = 1 ] &&
			flagged "$d/alloc.txt" map-slow allocs/op lookup && flagged "$d/alloc.txt" map-slow allocs/op insert; then
			alloc=$((alloc + 1))
		fi
		if [ "$thr" = "${CI_GATE_THRESHOLD:-25%}" ]; then
			echo "$thr trial $t: map-slow lookup ratio $(awk '/ is better$/ { s = ($1 == "ns/op") } s && $1 == "map-slow" && $3 == "lookup" { print $5 " -> " $6 " (" $7 ")" }' "$d/slow.txt");" \
				"measured slowdown of map-slow over map: +$(awk -v a="$(slowdown "$d/new-s.json")" -v b="$(slowdown "$d/old.json")" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')%;" \
				"A/A regressions: $(grep REGRESSION "$d/aa.txt" | awk '{ printf "%s/%s ", $1, $3 }')" >>"$WORK/detail.txt"
		fi
	done
	aac=0 caughtc=0
	for t in $(seq 1 "$TRIALS"); do
		next=$((t % TRIALS + 1))
		[ "${aa_hits[t]}" = 1 ] && [ "${aa_hits[next]}" = 1 ] && aac=$((aac + 1))
		[ "${slow_hits[t]}" = 1 ] && [ "${slow_hits[next]}" = 1 ] && caughtc=$((caughtc + 1))
	done
	printf '%-9s %-18s %-18s %-22s %-20s %-18s %-22s %-18s\n' "$thr" "$aa/$TRIALS" "$aac/$TRIALS" "$abs/$TRIALS" "$caught/$TRIALS" "$caughtc/$TRIALS" "$others/$TRIALS" "$alloc/$TRIALS"
done
