#!/usr/bin/env python3
"""One compact table from one or more OUT directories of library-bugs.sh:
a row per bug, a column per strategy, each cell the first-bug iteration of
every seed ("-": none within the budget, "?": not run), the median over the
seeds that found the bug, and found/seeds ("not run" when no seed ran).

    scripts/library-bugs-compact.py SEEDS OUT... [--strategies a,b,c] [--bugs x,y]

Each campaign's result comes from the first OUT that holds it (runs of
the same campaign give the same result: campaigns are deterministic). Bugs and strategies default to those found in the OUTs, in the
order of bugs/etcdraft and of the strategies' first appearance."""
import os, statistics, sys

args, strategies, bugs = [], None, None
it = iter(sys.argv[1:])
for a in it:
    if a == "--strategies":
        strategies = next(it).split(",")
    elif a == "--bugs":
        bugs = next(it).split(",")
    else:
        args.append(a)
if len(args) < 2:
    sys.exit("usage: library-bugs-compact.py SEEDS OUT... [--strategies a,b] [--bugs x,y]")
seeds, outs = int(args[0]), args[1:]

results = {}  # (bug, strategy, seed) -> file
seen_s, seen_b = [], []
for d in outs:
    for f in sorted(os.listdir(d)):
        parts = f.split(".")
        if len(parts) != 3 or not parts[2].isdigit():
            continue
        b, s = parts[0], parts[1]
        results.setdefault((b, s, int(parts[2])), os.path.join(d, f))
        if s not in seen_s:
            seen_s.append(s)
        if b not in seen_b:
            seen_b.append(b)
strategies = strategies or seen_s
bugs = bugs or sorted(seen_b)

def cell(b, s):
    if not any((b, s, seed) in results for seed in range(1, seeds + 1)):
        return "not run"
    row, found = [], []
    for seed in range(1, seeds + 1):
        p = results.get((b, s, seed))
        if p is None:
            row.append("?")
            continue
        first = open(p).read().split()[0]
        row.append(first)
        if first != "-":
            found.append(int(first))
    ran = sum(x != "?" for x in row)
    m = statistics.median(found) if found else 0
    med = f"{m:,.0f}" if m == int(m) else f"{m:,.1f}"
    if not found:
        return f"- ({0}/{ran})" + ("" if ran == seeds else f", {seeds - ran} not run")
    return f"{' '.join(row)}: {med} ({len(found)}/{ran})"

print("| bug | " + " | ".join(strategies) + " |")
print("|---|" + "---|" * len(strategies))
for b in bugs:
    print(f"| {b} | " + " | ".join(cell(b, s) for s in strategies) + " |")
