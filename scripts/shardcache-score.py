#!/usr/bin/env python3
"""Score shardcache hit-ratio replays against the committed peers.

Each cell's shortfall is how many points of object hit ratio shardcache
falls below the best unflagged adapter of that cell (OPT excluded), the
peers' figures taken from the committed sweeps (they do not depend on
shardcache) and shardcache's from the replay given. The real traces are
split by source into two halves: A (cache2k, corda, scarab) and B (lirs,
cloud_physics, adapt_size).

  scripts/shardcache-score.py [--peers-real F] [--peers-synthetic F] \
      NAME=REAL.json,SYNTHETIC.json [NAME=...]

prints a markdown table, one row per NAME, with each figure's change from
the first NAME's (the baseline) in brackets. With --cells it prints instead,
for every cell, each NAME's shortfall and the peer that is best there, the
cells sorted by the last NAME's shortfall, largest first. Exit 2 for bad
arguments or unreadable files.
"""
import argparse
import json
import sys

HALF_A = ("cache2k/", "corda/", "scarab/")


def cells(path):
    """{(trace, capacity): {adapter: (hit ratio, flagged)}} of a result file."""
    with open(path) as f:
        d = json.load(f)
    out = {}
    for t in d["traces"]:
        for r in t["rows"]:
            key = (t["name"], r["capacity"])
            out.setdefault(key, {})[r["adapter"]] = (r["hit_ratio"], bool(r.get("flags")))
    return out


def best_peer(rows):
    """The best unflagged peer of a cell (OPT and shardcache excluded)."""
    peers = [(hr, a) for a, (hr, fl) in rows.items() if a not in ("OPT", "shardcache") and not fl]
    return max(peers) if peers else (float("nan"), "-")


def score(peers, mine):
    """Shortfalls of shardcache per cell, and the cells > 1 point below LRU."""
    short, below_lru, missing = {}, [], []
    for key, rows in peers.items():
        sc = mine.get(key, {}).get("shardcache")
        if sc is None or sc[1]:
            missing.append(key)
            continue
        best = max([hr for a, (hr, fl) in rows.items() if a not in ("OPT", "shardcache") and not fl] + [sc[0]])
        short[key] = 100 * (best - sc[0])
        if "lru" in rows and 100 * (rows["lru"][0] - sc[0]) > 1:
            below_lru.append(key)
    return short, below_lru, missing


def summary(short, pick):
    v = [x for k, x in short.items() if pick(k)]
    return (sum(v) / len(v), max(v)) if v else (float("nan"), float("nan"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--peers-real", default="results/hitratio/real.json")
    p.add_argument("--peers-synthetic", default="results/hitratio/synthetic.json")
    p.add_argument("--cells", action="store_true", help="print every cell's shortfall instead of the summary")
    p.add_argument("runs", nargs="+", metavar="NAME=REAL.json,SYNTHETIC.json")
    a = p.parse_args()
    try:
        peers_r, peers_s = cells(a.peers_real), cells(a.peers_synthetic)
        rows = []
        for run in a.runs:
            name, _, files = run.partition("=")
            real, _, syn = files.partition(",")
            if not name or not real or not syn:
                print(f"shardcache-score: {run!r}: want NAME=REAL.json,SYNTHETIC.json", file=sys.stderr)
                return 2
            sr, lr, mr = score(peers_r, cells(real))
            ss, ls, ms = score(peers_s, cells(syn))
            rows.append((name, summary(sr, lambda k: k[0].startswith(HALF_A)),
                         summary(sr, lambda k: not k[0].startswith(HALF_A)),
                         summary(sr, lambda k: True), summary(ss, lambda k: True),
                         len(lr) + len(ls), len(mr) + len(ms), {**sr, **ss}))
    except (OSError, ValueError, KeyError) as e:
        print(f"shardcache-score: {e}", file=sys.stderr)
        return 2
    if a.cells:
        print_cells(rows, peers_r | peers_s)
        return 0
    print("| variant | half A mean | half A worst | half B mean | half B worst | real mean | real worst | synthetic mean | synthetic worst | cells >1 below LRU | cells missing or flagged |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = rows[0]
    for r in rows:
        figs = []
        for i in (1, 2, 3, 4):
            for j in (0, 1):
                v, b = r[i][j], base[i][j]
                figs.append(f"{v:.2f}" if r is base else f"{v:.2f} ({v - b:+.2f})")
        print(f"| {r[0]} | " + " | ".join(figs) + f" | {r[5]} | {r[6]} |")
    return 0


def print_cells(rows, peers):
    """One line per cell: its half, each run's shortfall, the best peer and LRU."""
    names = [r[0] for r in rows]
    print("| cell | half | " + " | ".join(names) + " | best peer | LRU below best |")
    print("|---|---|" + "---:|" * len(names) + "---|---:|")
    last = rows[-1][7]
    for key in sorted(last, key=lambda k: -last[k]):
        half = "A" if key[0].startswith(HALF_A) else "B" if "/" in key[0] else "syn"
        hr, who = best_peer(peers[key])
        lru = peers[key].get("lru", (float("nan"), False))[0]
        figs = [f"{r[7][key]:.2f}" if key in r[7] else "-" for r in rows]
        print(f"| {key[0]} at {key[1]} | {half} | " + " | ".join(figs) +
              f" | {who} {100 * hr:.2f} | {100 * (hr - lru):.2f} |")


if __name__ == "__main__":
    sys.exit(main())
