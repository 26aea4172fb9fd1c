#!/usr/bin/env python3
# Corruption sweep through the command line: 200 store files with random bit
# flips, each through inspect --verify and a checked --get of 5 keys.
# Usage: CACHEBENCH=/path/to/cachebench scripts/fault-sweep-corrupt.py
import json, os, random, subprocess, shutil
B = os.environ.get("CACHEBENCH", "cachebench")
import tempfile; D = tempfile.mkdtemp()
good = os.path.join(D, "good.cache")
subprocess.run([B, "build", "--synthetic", "2000", "-o", good, "--progress", "never"], check=True, capture_output=True)
data = open(good, "rb").read()
rng = random.Random(26)
files = runs = caught = wrong = panics = ok_gets = failed_gets = 0
for i in range(200):
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 8])):
        pos = rng.randrange(len(b)); b[pos] ^= 1 << rng.randrange(8)
    p = os.path.join(D, "c.cache"); open(p, "wb").write(b); files += 1
    r = subprocess.run([B, "inspect", "--verify", p], capture_output=True, text=True); runs += 1
    if "panic" in r.stderr or "SIGBUS" in r.stderr: panics += 1
    if r.returncode == 2: caught += 1
    keys = ["key_%d" % rng.randrange(2000) for _ in range(5)]
    args = [B, "inspect", "--format", "json", p]
    for k in keys: args[2:2] = ["--get", k]
    r = subprocess.run(args, capture_output=True, text=True); runs += 1
    if "panic" in r.stderr or "SIGBUS" in r.stderr: panics += 1
    try:
        rep = json.loads(r.stdout) if r.stdout else {}
    except Exception:
        rep = {}
    for g in rep.get("gets", []):
        if g.get("error"): failed_gets += 1; continue
        if g.get("found"):
            if g.get("value") != "val_" + g["key"][4:]:
                if r.returncode == 0: wrong += 1
            else: ok_gets += 1
print(f"corrupted files {files}, inspect runs {runs}, --verify caught {caught}/{files}, "
      f"checked gets: {ok_gets} right, {failed_gets} refused with a checksum error, {wrong} wrong values with exit 0, panics {panics}")
