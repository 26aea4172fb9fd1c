#!/usr/bin/env bash
# Usage: CACHEBENCH=/path/to/cachebench scripts/fault-sweep.sh [short|full]
#
# Fault sweep of the command line: bad inputs x commands, then signals x
# commands, each probe a real process. A probe has the exit codes it may
# end with; it counts as unexpected otherwise, as a crash when its stderr
# holds a Go panic or fatal error (or it died of a signal nobody sent),
# and every probe's output directory must hold only what a complete or
# interrupted run names (a failed one leaves -o as it was). A signal
# probe also times how long the command takes to exit after the signal
# (the rule: within a second). The memory peak is the largest maximum
# resident size of a probe (GNU time; "n/a" without it).
#
# short (what CI runs, well under a minute): small inputs, SIGINT and
# SIGTERM once each. full: larger inputs, SIGINT, SIGTERM and SIGKILL at
# four moments, the network adapters (needs memcached and redis-server),
# and the store corruption sweep (scripts/fault-sweep-corrupt.py).
#
# Exit status: 0 when no probe was unexpected, crashed or left a file; 1
# otherwise. Bad-input probes that need python3 (to patch an xz header)
# are skipped without it, and counted as skipped.
set -u
MODE=${1:-full}
case $MODE in short | full) ;; *)
	echo "usage: $0 [short|full]" >&2
	exit 2
	;;
esac
B=${CACHEBENCH:-cachebench}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
IN=$W/in OUT=$W/out
mkdir -p "$IN" "$OUT"
TIME=/usr/bin/time
[ -x $TIME ] || TIME=""

probes=0 bad_probes=0 sig_probes=0 unexpected=0 crashes=0 left=0 skipped=0
slow=0 slowest=0 peak=0 peak_probe=""
declare -A seen=()

# note_exit records exit code $1 of probe $2, expected in the list $3.
note_exit() {
	local c=$1 name=$2 want=$3
	probes=$((probes + 1))
	seen[$c]=$((${seen[$c]:-0} + 1))
	if ! [[ " $want " == *" $c "* ]]; then
		unexpected=$((unexpected + 1))
		echo "  UNEXPECTED: $name exited $c (want $want): $(head -c 300 "$W/stderr" | tr '\n' ' ')"
	fi
	if grep -qE '^(panic:|fatal error:)|SIGBUS|SIGSEGV' "$W/stderr"; then
		crashes=$((crashes + 1))
		echo "  CRASH: $name: $(grep -m1 -E 'panic:|fatal error:|SIGBUS|SIGSEGV' "$W/stderr")"
	fi
	if [ -n "$TIME" ] && [ -s "$W/time" ]; then
		local kb
		kb=$(tail -1 "$W/time")
		if [[ $kb =~ ^[0-9]+$ ]] && [ "$kb" -gt "$peak" ]; then
			peak=$kb peak_probe=$name
		fi
	fi
}

# check_left counts files in $OUT other than the names given (regexes).
check_left() {
	local name=$1 allowed=$2 f extra=0
	for f in "$OUT"/* "$OUT"/.[!.]*; do
		[ -e "$f" ] || continue
		if ! [[ $(basename "$f") =~ ^($allowed)$ ]]; then
			extra=$((extra + 1))
			echo "  LEFT: $name left $(basename "$f")"
		fi
	done
	left=$((left + extra))
}

# probe WANT NAME CMD...: one bad-input run. -o paths under $OUT must be
# left as they were (old.cache is the one file there beforehand).
probe() {
	local want=$1 name=$2
	shift 2
	bad_probes=$((bad_probes + 1))
	: >"$W/time"
	local before
	before=$(cksum <"$OUT/old.cache")
	if [ -n "$TIME" ]; then
		$TIME -o "$W/time" -f %M timeout 120 "$@" >"$W/stdout" 2>"$W/stderr"
	else
		timeout 120 "$@" >"$W/stdout" 2>"$W/stderr"
	fi
	local c=$?
	note_exit $c "$name" "$want"
	if [ "$c" != 0 ] && [ "$(cksum <"$OUT/old.cache")" != "$before" ]; then
		left=$((left + 1))
		echo "  CHANGED: $name failed but changed the existing -o"
	fi
	# A failed run leaves nothing; a good one its -o.
	if [ "$c" = 0 ]; then
		check_left "$name" 'old\.cache|ok\.cache|stats\.json|h\.json'
	else
		check_left "$name" 'old\.cache'
	fi
	rm -f "$OUT/ok.cache" "$OUT/stats.json" "$OUT/h.json"
}

# sigprobe SIG DELAY WANT NAME ALLOWED CMD...: start the command, send
# SIG after DELAY seconds, time the exit.
sigprobe() {
	local sig=$1 delay=$2 want=$3 name=$4 allowed=$5
	shift 5
	sig_probes=$((sig_probes + 1))
	: >"$W/time"
	if [ -n "$TIME" ]; then
		$TIME -o "$W/time" -f %M "$@" >"$W/stdout" 2>"$W/stderr" &
	else
		"$@" >"$W/stdout" 2>"$W/stderr" &
	fi
	local p=$!
	sleep "$delay"
	# The command is time's child when time runs it.
	local target=$p
	if [ -n "$TIME" ]; then
		target=$(pgrep -P $p | head -1)
		[ -n "$target" ] || target=$p
	fi
	local t0 t1
	t0=$(date +%s.%N)
	kill -"$sig" "$target" 2>/dev/null
	wait $p
	local c=$?
	t1=$(date +%s.%N)
	# time reports a child killed by a signal as "Command terminated by
	# signal N" and exits 128+N itself.
	note_exit $c "$name/$sig@${delay}s" "$want"
	local took
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if awk -v t="$took" 'BEGIN { exit !(t > 1.0) }'; then
		slow=$((slow + 1))
		echo "  SLOW: $name/$sig@${delay}s took ${took}s to exit after the signal"
	fi
	awk -v t="$took" -v m="$slowest" 'BEGIN { exit !(t > m) }' && slowest=$took
	check_left "$name/$sig" "old\.cache|$allowed"
	find "$OUT" -mindepth 1 ! -name old.cache -delete
}

echo "fault sweep ($MODE), $(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "binary: $B ($($B version 2>/dev/null | head -1)); $(go version 2>/dev/null || echo "go not on PATH")"
echo "command: CACHEBENCH=$B $0 $MODE"

# ---- inputs -------------------------------------------------------------
$B build --synthetic 200 -o "$OUT/old.cache" --progress never >/dev/null
$B build --synthetic 2000 -o "$IN/good.cache" --progress never >/dev/null
printf '{"key":"user\\udc00","value":1}\n{"key":"user\\udfff","value":1}\n' >"$IN/surrogate.jsonl"
printf '{"key":"k","value":"v\\ud800"}\n' >"$IN/surrogate-value.jsonl"
printf '{"key":7,"value":1}\n' >"$IN/numeric-key.jsonl"
printf '{"key":"k\xff","value":1}\n' >"$IN/bad-utf8.jsonl"
printf '\xef\xbb\xbfk\tv\n' >"$IN/bom.tsv"
printf '\xef\xbb\xbfk,v\n' >"$IN/bom.csv"
printf '\xef\xbb\xbf{"key":"k","value":"v"}\n' >"$IN/bom.jsonl"
printf '"a\r\nb","x\r\ny"\r\n' >"$IN/crlf.csv"
: >"$IN/empty.tsv"
head -c 4096 /dev/urandom >"$IN/junk.tsv"
mkdir -p "$IN/dir.tsv"
$B trace gen --kind zipf --requests 20000 --keys 2000 -o "$IN/t.oracleGeneral" >/dev/null 2>&1
$B trace gen --kind zipf --requests 20000 --keys 2000 -o "$IN/t.oracleGeneral.xz" >/dev/null 2>&1
$B trace gen --kind zipf --requests 20000 --keys 2000 -o "$IN/t.oracleGeneral.gz" >/dev/null 2>&1
xzsize=$(stat -c %s "$IN/t.oracleGeneral.xz")
for cut in 8 12 13 24 100 $((xzsize / 2)) $((xzsize - 1)); do
	head -c $cut "$IN/t.oracleGeneral.xz" >"$IN/cut$cut.oracleGeneral.xz"
done
cat "$IN/t.oracleGeneral.xz" "$IN/t.oracleGeneral.xz" >"$IN/two.oracleGeneral.xz"
{
	cat "$IN/t.oracleGeneral.xz"
	head -c 11 "$IN/t.oracleGeneral.xz"
} >"$IN/trailcut.oracleGeneral.xz"
{
	cat "$IN/t.oracleGeneral.gz"
	head -c 11 "$IN/t.oracleGeneral.gz"
} >"$IN/trailcut.oracleGeneral.gz"
head -c 1000 "$IN/t.oracleGeneral" >"$IN/cut.oracleGeneral"
printf '1 1 4294967295\n2 2 4294967295\n3 1 4294967295\n' >"$IN/huge.adaptsize"
printf '\xef\xbb\xbfa\nb\na\n' >"$IN/bom.txt"
# A gzip bomb of zeros: cache2k records of key 0, 64 KiB of file per 16 MiB.
zeros=$([ "$MODE" = short ] && echo 64 || echo 256)
head -c $((zeros << 20)) /dev/zero | gzip -1 >"$IN/zeros.cache2k.gz"
head -c 3000 "$IN/good.cache" >"$IN/cut.cache"
cp "$IN/good.cache" "$IN/flip.cache"
printf '\x55' | dd of="$IN/flip.cache" bs=1 seek=$(($(stat -c %s "$IN/good.cache") / 2)) conv=notrunc 2>/dev/null
have_py=0
if command -v python3 >/dev/null 2>&1; then
	have_py=1
	# The second stream's block header asks for a 1 GiB dictionary, its
	# CRC32 made right: only the dictionary cap refuses it.
	python3 - "$IN/t.oracleGeneral.xz" "$IN/bigdict.oracleGeneral.xz" <<'EOF'
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
b = bytearray(data)
h = 12                                  # the first block header
size = (b[h] + 1) * 4
i = b.index(b"\x21\x01", h, h + size)
b[i + 2] = 36                           # 2^29 << 1 = 1 GiB
b[h + size - 4:h + size] = struct.pack("<I", zlib.crc32(bytes(b[h:h + size - 4])))
open(sys.argv[2], "wb").write(data + bytes(b))
EOF
fi

# ---- bad inputs x commands ----------------------------------------------
echo "bad inputs x commands"
for f in surrogate.jsonl surrogate-value.jsonl numeric-key.jsonl bad-utf8.jsonl empty.tsv junk.tsv dir.tsv absent.tsv; do
	probe 2 "build $f" $B build --input "$IN/$f" -o "$OUT/old.cache" --progress never
done
probe 2 "build /dev/zero" $B build --input /dev/zero --input-format tsv -o "$OUT/old.cache" --progress never
probe 2 "build --synthetic 0" $B build --synthetic 0 -o "$OUT/old.cache"
for f in bom.tsv bom.csv bom.jsonl crlf.csv; do
	probe 0 "build $f" $B build --input "$IN/$f" -o "$OUT/ok.cache" --progress never
	if [ -e "$OUT/ok.cache" ] && [[ $f == bom.* ]]; then
		# The BOM is no part of the first key: --get k finds it.
		probe 0 "get k after $f" $B inspect --get k --format json "$OUT/ok.cache"
		grep -q '"found": true' "$W/stdout" || {
			unexpected=$((unexpected + 1))
			echo "  UNEXPECTED: k not found after $f"
		}
	fi
done
for f in cut8 cut12 cut13 cut24 cut100 cut$((xzsize / 2)) cut$((xzsize - 1)) trailcut; do
	probe 2 "trace stats $f.xz" $B trace stats "$IN/$f.oracleGeneral.xz"
	probe 2 "hitratio $f.xz" $B hitratio --trace "$IN/$f.oracleGeneral.xz" --adapters lru --capacity 0.1 --progress never -o "$OUT/h.json"
done
probe 2 "trace stats trailcut.gz" $B trace stats "$IN/trailcut.oracleGeneral.gz"
probe 2 "hitratio trailcut.gz" $B hitratio --trace "$IN/trailcut.oracleGeneral.gz" --adapters lru --capacity 0.1 --progress never
probe 0 "trace stats two streams" $B trace stats "$IN/two.oracleGeneral.xz"
probe 2 "trace stats cut oracle" $B trace stats "$IN/cut.oracleGeneral"
probe 0 "trace stats bom.txt" $B trace stats --format json "$IN/bom.txt"
grep -q '"distinct": 2' "$W/stdout" || {
	unexpected=$((unexpected + 1))
	echo "  UNEXPECTED: bom.txt does not have 2 distinct keys"
}
if [ $have_py = 1 ]; then
	probe 2 "trace stats bigdict.xz" $B trace stats "$IN/bigdict.oracleGeneral.xz"
	probe 2 "hitratio bigdict.xz" $B hitratio --trace "$IN/bigdict.oracleGeneral.xz" --adapters lru --capacity 0.1 --progress never
else
	skipped=$((skipped + 2))
fi
# Bounded by the memory there is: GOMEMLIMIT is the limit fit reads.
probe 2 "trace stats gzip bomb, 48 MiB" env GOMEMLIMIT=48MiB $B trace stats "cache2k:$IN/zeros.cache2k.gz"
grep -q 'needs about' "$W/stderr" || {
	unexpected=$((unexpected + 1))
	echo "  UNEXPECTED: the gzip bomb was not refused for its memory: $(head -c 200 "$W/stderr")"
}
probe 2 "run trace:gzip bomb, 48 MiB" env GOMEMLIMIT=48MiB $B run --workload "trace:cache2k:$IN/zeros.cache2k.gz" --adapters map --count 1 --cpu 1 --progress never
grep -q 'needs about' "$W/stderr" || {
	unexpected=$((unexpected + 1))
	echo "  UNEXPECTED: run refused the gzip bomb for another reason: $(head -c 200 "$W/stderr")"
}
probe 0 "hitratio lru at 1e8 entries" $B hitratio --trace "$IN/t.oracleGeneral" --adapters lru --capacity 100000000 --progress never
probe 2 "hitratio freecache at 1e9 entries" $B hitratio --trace "$IN/t.oracleGeneral" --adapters freecache --capacity 1000000000 --progress never
if [ "$MODE" = short ]; then
	probe 0 "hitratio 4 GiB sizes" $B hitratio --trace "adaptsize:$IN/huge.adaptsize" --adapters lru,freecache,shardcache --jobs 2 --progress never
else
	probe 0 "hitratio 4 GiB sizes" $B hitratio --trace "adaptsize:$IN/huge.adaptsize" --jobs 2 --progress never
fi
probe 2 "inspect --verify cut store" $B inspect --verify "$IN/cut.cache"
probe 2 "inspect --verify flipped store" $B inspect --verify "$IN/flip.cache"
probe 2 "inspect a text file" $B inspect --verify "$IN/bom.tsv"
probe 0 "inspect --verify good store" $B inspect --verify "$IN/good.cache"

# ---- signals x commands ---------------------------------------------------
echo "signals x commands"
if [ "$MODE" = short ]; then
	sigs="INT TERM" delays="0.4" big=1000000 reqs=5000000
else
	sigs="INT TERM KILL" delays="0.05 0.3 0.8 1.5" big=4000000 reqs=20000000
fi
$B build --synthetic $big -o "$IN/big.cache" --progress never >/dev/null
for sig in $sigs; do
	kc=""
	[ "$sig" = KILL ] && kc=137
	for d in $delays; do
		sigprobe $sig $d "0 130 $kc" "trace stats bomb" 'stats\.json' $B trace stats --format json -o "$OUT/stats.json" "cache2k:$IN/zeros.cache2k.gz"
		sigprobe $sig $d "0 130 $kc" "inspect --verify" '' $B inspect --verify "$IN/big.cache"
		sigprobe $sig $d "0 130 $kc" "build" 's\.cache' $B build --synthetic $big -o "$OUT/s.cache" --progress never
		sigprobe $sig $d "0 130 $kc" "trace gen" 't\.oracleGeneral\.zst' $B trace gen --kind web --requests $reqs -o "$OUT/t.oracleGeneral.zst"
		sigprobe $sig $d "0 130 $kc" "hitratio bomb" 'h\.json|h\.interrupted\.json' $B hitratio --trace "cache2k:$IN/zeros.cache2k.gz" --adapters lru --capacity 0.5 --progress never -o "$OUT/h.json"
		sigprobe $sig $d "0 130 $kc" "run" 'r\.json|r\.interrupted\.json' $B run --adapters map,fastcache --keys 300000 --count 3 --format json -o "$OUT/r.json" --progress never
		if [ "$MODE" = full ] && command -v memcached >/dev/null && command -v redis-server >/dev/null; then
			sigprobe $sig $((${d%.*} + 2)) "0 130 $kc" "run network" 'n\.json|n\.interrupted\.json' $B run --adapters memcached,redis --workload get-or-set/umem --keys 2048 --count 3 --format json -o "$OUT/n.json" --progress never
		fi
	done
done

if [ "$MODE" = full ] && [ $have_py = 1 ]; then
	echo "store corruption sweep (scripts/fault-sweep-corrupt.py)"
	CACHEBENCH=$B python3 "$(dirname "$0")/fault-sweep-corrupt.py"
fi

codes=""
for c in $(printf '%s\n' "${!seen[@]}" | sort -n); do codes="$codes $c:${seen[$c]}"; done
mem="n/a"
[ -n "$TIME" ] && mem="$((peak / 1024)) MiB ($peak_probe)"
echo "probes: $probes ($bad_probes bad inputs, $sig_probes signals; $skipped skipped)"
echo "exit codes seen (code:count):$codes"
echo "unexpected exit codes: $unexpected; crashes: $crashes; files left behind or changed: $left"
echo "signal to exit: slowest ${slowest}s, $slow over 1 s"
echo "memory peak: $mem"
[ $((unexpected + crashes + left)) -eq 0 ]
