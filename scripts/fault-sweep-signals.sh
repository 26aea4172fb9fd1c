#!/bin/bash
# Usage: CACHEBENCH=/path/to/cachebench scripts/fault-sweep-signals.sh (needs memcached and redis-server)
# Signal sweep: signals at random moments during build, trace gen and runs
# (memory and network). Counts left-over files in the output directory and
# servers left running.
B=${CACHEBENCH:-cachebench}
D=$(mktemp -d)
sigs=(INT TERM KILL)
n=0; left=0; servers=0; started=0; codes=""
run() { # name, then the command
  local name=$1; shift
  for sig in "${sigs[@]}"; do
    for delay in ${DELAYS:-0.05 0.3 0.8 1.5}; do
      "$@" >/dev/null 2>&1 & local p=$!
      sleep $delay
      # The servers this run started: its children (other jobs' test
      # servers on this shared machine are not ours to count).
      local kids=$(pgrep -P $p -d ' ')
      kill -$sig $p 2>/dev/null; wait $p; local c=$?
      codes="$codes $name/$sig:$c"
      n=$((n+1))
      # Anything but the expected output names is a left-over.
      local extra=$(ls -A $D | grep -v -E '^(s\.cache|t\.oracleGeneral|t\.oracleGeneral\.zst|r\.json|r\.interrupted\.json|n\.json|n\.interrupted\.json)$' | wc -l)
      left=$((left+extra))
      [ $extra -gt 0 ] && ls -A $D
      sleep 0.3
      local s=0
      for k in $kids; do st=$(ps -o stat= -p $k 2>/dev/null); [ -n "$st" ] && [ "${st:0:1}" != Z ] && s=$((s+1)); done
      servers=$((servers+s)); started=$((started+$(echo $kids | wc -w)))
    done
  done
}
run build $B build --synthetic 2000000 -o $D/s.cache --progress never
run tracegen $B trace gen --kind web --requests 20000000 -o $D/t.oracleGeneral
run tracegenz $B trace gen --kind web --requests 20000000 -o $D/t.oracleGeneral.zst
run run $B run --adapters map,fastcache --keys 300000 --count 3 --format json -o $D/r.json --progress never
DELAYS="1.5 2.5 3.5 5" run network $B run --adapters memcached,redis --workload get-or-set/umem --keys 2048 --count 3 --format json -o $D/n.json --progress never
echo "signals: $n; left-over files: $left; servers seen started: $started, left running: $servers"
echo "$codes" | tr ' ' '\n' | sort | uniq -c | sort -k2 | tr '\n' ' '; echo
# Outputs that exist must be complete.
for f in $D/s.cache; do [ -e $f ] && { $B inspect --verify $f >/dev/null 2>&1 && echo "$f verifies" || echo "$f DOES NOT VERIFY"; }; done
for f in $D/r.json $D/n.json $D/r.interrupted.json $D/n.interrupted.json; do [ -e $f ] && { python3 -c "import json,sys; r=json.load(open('$f')); print('$f', 'interrupted' if r.get('interrupted') else 'complete', len(r['measurements']), 'measurements')" || echo "$f BROKEN"; }; done
