#!/usr/bin/env bash
# A/A false alarms of `cachebench compare` at its defaults: PAIRS times,
# two back-to-back runs of the same binary with the same flags (what a user
# does first: run, run again, compare), then `cachebench compare OLD NEW`
# with no flags. Any exit 1 is a false alarm, since nothing changed.
# Prints one line per pair (exit code, regressions found, the rule compare
# says it used) and the false-alarm count.
#   scripts/aa-compare.sh                        # 20 pairs of 5,000-key default runs
#   PAIRS=5 RUN_FLAGS="--keys 2000" scripts/aa-compare.sh
#   OUT=results/measure/compare-aa-false-alarms.txt scripts/aa-compare.sh
#   BIN=/path/to/cachebench scripts/aa-compare.sh  # another build (e.g. before a change)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${PAIRS:-20}
run_flags=${RUN_FLAGS:---keys 5000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BIN:-}" ]; then
	cp "$BIN" "$tmp/cachebench"
else
	go build -o "$tmp/cachebench" ./cmd/cachebench
fi
alarms=0
{
	echo "A/A: $pairs pairs of back-to-back 'cachebench run $run_flags', compared with 'cachebench compare OLD NEW' (defaults)"
	echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) logical cores, $(date -u +%Y-%m-%dT%H:%MZ), binary ${BIN:-"of revision $(git rev-parse --short HEAD)$(git diff --quiet || echo +changes)"}"
	[ -n "${NOTE:-}" ] && echo "$NOTE"
	echo
} | tee "$tmp/head.txt" >&2
for p in $(seq "$pairs"); do
	# shellcheck disable=SC2086 # run_flags is a list of flags
	"$tmp/cachebench" run $run_flags --format json --progress never -o "$tmp/a.json" 2>/dev/null
	# shellcheck disable=SC2086
	"$tmp/cachebench" run $run_flags --format json --progress never -o "$tmp/b.json" 2>/dev/null
	rc=0
	"$tmp/cachebench" compare "$tmp/a.json" "$tmp/b.json" >"$tmp/cmp.txt" 2>&1 || rc=$?
	[ "$rc" = 1 ] && alarms=$((alarms + 1))
	summary=$(grep -E -m1 '^[0-9]+ regressions?' "$tmp/cmp.txt" || echo "(no summary line)")
	rule=$(grep -i -m1 '^rule' "$tmp/cmp.txt" || echo "rule: (not stated)")
	echo "pair $p: exit $rc; $summary; $rule" | tee -a "$tmp/lines.txt" >&2
	# What was called a regression (the first few rows), to see what moves.
	grep -E 'REGRESSION|^(new flag|new error)' "$tmp/cmp.txt" | head -4 | sed 's/^/    /' | tee -a "$tmp/lines.txt" >&2 || true
	[ "$rc" = 2 ] && { cat "$tmp/cmp.txt" >&2; exit 2; }
done
{
	cat "$tmp/head.txt" "$tmp/lines.txt"
	echo
	echo "false alarms (exit 1): $alarms of $pairs"
} | tee "${OUT:-/dev/null}"
