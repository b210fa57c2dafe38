#!/usr/bin/env python3
"""One compact table from one or more OUT directories of library-bugs.sh:
a row per bug, a column per strategy, each cell the first-bug iteration of
every seed ("-": none within the budget, "?": not run), the median over the
seeds that found the bug, and found/seeds ("not run" when no seed ran),
then the median CPU seconds to the first bug over the seeds that found it
(the campaign's user + system time from /usr/bin/time: with --stop-on-bug,
its CPU to the first bug).

    scripts/library-bugs-compact.py SEEDS OUT... [--first-seed N] [--strategies a,b,c] [--bugs x,y] [--base s --budget N] [--guided a,b] [--rates] [--brief]

--first-seed is the first seed of the SEEDS (default 1), as library-bugs.sh's
FIRST_SEED. --brief leaves the seeds' iterations out of the first table's
cells (the median, found/seeds and median CPU seconds stay).

With --rates, a table gives per bug and strategy the CPU seconds and the
iterations spent per find: everything the seeds spent (a campaign that
found the bug up to its find, one that did not its whole budget) over the
number of finds, with a 95 % interval from 2,000 bootstrap resamples of
the seeds. It is the maximum-likelihood estimate of the mean time to the
bug when finds arrive at a constant rate, and it uses the censored seeds,
which the median over the seeds that found the bug leaves out; with few
seeds and a long-tailed time to the bug it moves less from one set of
seeds to another than the median does.

With --base and --budget, a second table compares the base strategy with
every other, per bug, on the first-bug iteration and on the CPU seconds to
it: Vargha-Delaney A12 and the Mann-Whitney p-value (exact), computed by
scripts/abtest with stats/, the package compare uses. A seed without a
find counts as budget + 1 iterations and, for CPU, as one second more than
any campaign of that bug spent. A12 below 0.5 means the base tends to need
fewer (iterations, CPU seconds) than the other.

With --guided, a last table says per bug which strategy is first: among
those that found the bug in at least 3 of 5 of the seeds (rounded up: 3
of 5, 12 of 20), the least median CPU seconds to it (and the least median
iterations), and whether the bar is met: a guided strategy (those named)
first by CPU seconds and finding the bug in at least 4 of 5 of the seeds
(4 of 5, 16 of 20). Bugs no strategy finds in 3 of 5 of the seeds are
outside the bar and said so.

Each campaign's result comes from the first OUT that holds it (runs of
the same campaign give the same result: campaigns are deterministic). Bugs and strategies default to those found in the OUTs, in the
order of bugs/etcdraft and of the strategies' first appearance."""
import os, statistics, sys

import subprocess

def whole(name, v):
    """v as a positive whole number, or a one-line refusal naming name."""
    if not v.isdigit() or int(v) < 1:
        sys.exit(f"library-bugs-compact.py: {name} wants a positive whole number, got {v!r}")
    return int(v)

args, strategies, bugs, base, budget, guided = [], None, None, None, None, None
first_seed, rates, brief = 1, False, False
it = iter(sys.argv[1:])
for a in it:
    if a == "--strategies":
        strategies = next(it).split(",")
    elif a == "--bugs":
        bugs = next(it).split(",")
    elif a == "--base":
        base = next(it)
    elif a == "--budget":
        budget = whole(a, next(it, ""))
    elif a == "--guided":
        guided = next(it).split(",")
    elif a == "--first-seed":
        first_seed = whole(a, next(it, ""))
    elif a == "--rates":
        rates = True
    elif a == "--brief":
        brief = True
    elif a.startswith("--"):
        sys.exit(f"library-bugs-compact.py: unknown flag {a} (--first-seed, --strategies, --bugs, --base, --budget, --guided, --rates, --brief)")
    else:
        args.append(a)
if len(args) < 2:
    sys.exit("usage: library-bugs-compact.py SEEDS OUT... [--strategies a,b] [--bugs x,y] [--base s --budget N]")
if (base is None) != (budget is None) and not (rates and budget is not None):
    sys.exit("library-bugs-compact.py: --base and --budget go together (the budget counts a seed without a find)")
if rates and budget is None:
    sys.exit("library-bugs-compact.py: --rates needs --budget (a seed without a find spent it)")
seeds, outs = whole("SEEDS", args[0]), args[1:]
for d in outs:
    if not os.path.isdir(d):
        sys.exit(f"library-bugs-compact.py: {d}: not a directory of library-bugs.sh results")
SEEDS = range(first_seed, first_seed + seeds)
# The bar's proportions: a bug is in it when some strategy finds it in 3
# of 5 of the seeds, and met when a guided strategy first finds it in 4 of 5.
in_bar, finds_all = -(-3 * seeds // 5), -(-4 * seeds // 5)

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
held = sorted({k[2] for k in results})
if not held:
    sys.exit(f"library-bugs-compact.py: no library-bugs.sh result (BUG.STRATEGY.SEED) in {' '.join(outs)}")
if not any(first_seed <= x < first_seed + seeds for x in held):
    sys.exit(f"library-bugs-compact.py: no result for seeds {first_seed}-{first_seed + seeds - 1}; the OUTs hold seeds {held[0]}-{held[-1]} (--first-seed?)")
bugs = bugs or sorted(seen_b)

def outcome(b, s, seed):
    """(first iteration or None, CPU seconds or None), or None when not run."""
    p = results.get((b, s, seed))
    if p is None:
        return None
    first = first_of(p)
    cpu = None
    if os.path.exists(p + ".cpu"):
        w = open(p + ".cpu").read().split()
        try:
            cpu = float(w[0].rstrip("-"))
        except (IndexError, ValueError):
            sys.exit(f"library-bugs-compact.py: {p}.cpu: not CPU seconds as library-bugs.sh writes them")
    return (None if first == "-" else int(first), cpu)


def first_of(p):
    """The first-bug iteration a result file holds ("-": none), or a
    one-line refusal naming the file."""
    w = open(p).read().split()
    if not w or not (w[0] == "-" or w[0].isdigit()):
        sys.exit(f"library-bugs-compact.py: {p}: not a first-bug iteration or '-' as library-bugs.sh writes them")
    return w[0]


def fmt(m):
    return f"{m:,.0f}" if m == int(m) else f"{m:,.1f}"


def cell(b, s):
    if not any((b, s, seed) in results for seed in SEEDS):
        return "not run"
    row, found = [], []
    for seed in SEEDS:
        p = results.get((b, s, seed))
        if p is None:
            row.append("?")
            continue
        first = first_of(p)
        row.append(first)
        if first != "-":
            found.append(int(first))
    ran = sum(x != "?" for x in row)
    m = statistics.median(found) if found else 0
    med = f"{m:,.0f}" if m == int(m) else f"{m:,.1f}"
    if not found:
        return f"- ({0}/{ran})" + ("" if ran == seeds else f", {seeds - ran} not run")
    cpus = [o[1] for o in (outcome(b, s, seed) for seed in SEEDS) if o and o[0] is not None and o[1] is not None]
    cpu = f", {statistics.median(cpus):.1f} s" if cpus else ""
    if brief:
        return f"{med} ({len(found)}/{ran}{cpu})"
    return f"{' '.join(row)}: {med} ({len(found)}/{ran}{cpu})"

print("| bug | " + " | ".join(strategies) + " |")
print("|---|" + "---|" * len(strategies))
for b in bugs:
    print(f"| {b} | " + " | ".join(cell(b, s) for s in strategies) + " |")

def first_table():
    """Per bug, the first strategy by median CPU seconds and by median
    iterations among those finding it in 3 of 5 of the seeds, and the bar."""
    print()
    print(f"First per bug among the strategies that found it in at least {in_bar} of {seeds} seeds (median CPU s; median iterations); the bar: {' or '.join(guided)} first by CPU s, found in at least {finds_all} of {seeds}")
    print()
    print("| bug | first by CPU s | first by iterations | best guided (most seeds, then CPU s) | bar |")
    print("|---|---|---|---|---|")
    met = total = 0
    for b in bugs:
        stats = {}
        for s in strategies:
            outs = [outcome(b, s, seed) for seed in SEEDS]
            ran = [o for o in outs if o]
            found = [o for o in ran if o[0] is not None]
            cpus = [o[1] for o in found if o[1] is not None]
            stats[s] = (len(found), len(ran), statistics.median([o[0] for o in found]) if found else None,
                        statistics.median(cpus) if cpus else None)
        major = [s for s in strategies if stats[s][0] >= in_bar and stats[s][3] is not None]
        ran = sum(stats[s][1] for s in strategies)
        note = "" if ran == seeds * len(strategies) else f" ({ran} of {seeds * len(strategies)} campaigns run)"
        if not major:
            print(f"| {b}{note} | none in {in_bar} of {seeds} seeds | | | outside the bar |")
            continue
        total += 1
        # Ties (CPU seconds are kept to a tenth) are all first.
        low_cpu = min(stats[s][3] for s in major)
        low_it = min(stats[s][2] for s in major)
        by_cpu = [s for s in major if stats[s][3] == low_cpu]
        by_it = [s for s in major if stats[s][2] == low_it]
        g = [s for s in guided if s in stats and stats[s][0] > 0 and stats[s][3] is not None]
        best = min(g, key=lambda s: (-stats[s][0], stats[s][3])) if g else None  # most finds, then least CPU
        show = lambda s: f"{s} ({stats[s][3]:.1f} s, {fmt(stats[s][2])}, {stats[s][0]}/{stats[s][1]})"
        ok = any(s in guided and stats[s][0] >= finds_all for s in by_cpu)
        met += ok
        print(f"| {b}{note} | {', '.join(show(s) for s in by_cpu)} | {', '.join(by_it)} ({fmt(low_it)}) | {show(best) if best else 'none found it'} | {'met' if ok else 'not met'} |")
    print()
    print(f"The bar is met on {met} of the {total} bugs some strategy finds in {in_bar} of {seeds} seeds.")

def rate_table():
    """Per bug and strategy, the CPU seconds and iterations spent per find
    (everything the seeds spent over the finds), with bootstrap intervals."""
    import random
    print()
    print(f"CPU seconds and iterations spent per find (all {seeds} seeds' spending over their finds; a seed without a find spent its whole budget of {budget:,} iterations), 95 % bootstrap interval over the seeds")
    print()
    print("| bug | strategy | found | CPU s per find | iterations per find |")
    print("|---|---|---|---|---|")
    firsts = []
    for b in bugs:
        est = {}
        for s in strategies:
            ran = [o for o in (outcome(b, s, seed) for seed in SEEDS) if o]
            if not ran or any(o[1] is None for o in ran):
                continue
            obs = [(o[0] is not None, o[1], o[0] if o[0] is not None else budget) for o in ran]
            def per(sample, k):
                f = sum(x[0] for x in sample)
                return sum(x[k] for x in sample) / f if f else float("inf")
            rng = random.Random(f"{b}|{s}")  # the same resamples whatever else the table holds
            def interval(k):
                boot = sorted(per([rng.choice(obs) for _ in obs], k) for _ in range(2000))
                return boot[49], boot[1949]
            show = lambda v: "-" if v == float("inf") else f"{v:,.1f}" if v < 100 else f"{v:,.0f}"
            finds = sum(x[0] for x in obs)
            c, (cl, ch) = per(obs, 1), interval(1)
            i, (il, ih) = per(obs, 2), interval(2)
            est[s] = (c, cl, ch, finds, len(obs))
            if finds == 0:
                print(f"| {b} | {s} | 0/{len(obs)} | - | - |")
                continue
            print(f"| {b} | {s} | {finds}/{len(obs)} | {show(c)} ({show(cl)}-{show(ch)}) | {show(i)} ({show(il)}-{show(ih)}) |")
        if est and any(v[3] for v in est.values()):
            low = min(v[0] for v in est.values())
            firsts.append((b, [s for s in est if est[s][0] == low], est))
    print()
    if not guided:
        print("| bug | first by CPU s per find |")
        print("|---|---|")
        for b, first, est in firsts:
            print(f"| {b} | {', '.join(first)} |")
        return
    print("| bug | first by CPU s per find | best guided | best other |")
    print("|---|---|---|---|")
    for b, first, est in firsts:
        def best(group):
            g = [s for s in est if (s in guided) == group and est[s][3]]
            if not g:
                return "none found it"
            s = min(g, key=lambda s: est[s][0])
            v = est[s]
            return f"{s}: {v[0]:,.1f} s ({v[1]:,.1f}-{v[2]:,.1f}), {v[3]}/{v[4]}"
        print(f"| {b} | {', '.join(first)} | {best(True)} | {best(False)} |")

if base is None:
    if guided:
        first_table()
    if rates:
        rate_table()
    sys.exit(0)
lines, labels = [], []
for b in bugs:
    outs = {s: [outcome(b, s, seed) for seed in SEEDS] for s in strategies}
    cpus = [o[1] for s in strategies for o in outs[s] if o and o[1] is not None]
    never_cpu = (max(cpus) if cpus else 0) + 1
    mine = [o for o in outs.get(base, []) if o]
    for s in strategies:
        theirs = [o for o in outs[s] if o]
        if s == base or not mine or not theirs:
            continue
        if all(o[0] is None for o in mine + theirs):
            continue  # neither found it: nothing to compare
        it_x = [o[0] if o[0] is not None else budget + 1 for o in mine]
        it_y = [o[0] if o[0] is not None else budget + 1 for o in theirs]
        lines.append(f"{b}|{s}|it\t{' '.join(map(str, it_x))}\t{' '.join(map(str, it_y))}")
        if all(o[1] is not None for o in mine + theirs):
            cx = [o[1] if o[0] is not None else never_cpu for o in mine]
            cy = [o[1] if o[0] is not None else never_cpu for o in theirs]
            lines.append(f"{b}|{s}|cpu\t{' '.join(map(str, cx))}\t{' '.join(map(str, cy))}")
        labels.append((b, s))
res = {}
if lines:
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["go", "run", "./scripts/abtest"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         cwd=os.path.dirname(here))
    if out.returncode != 0:
        sys.exit("library-bugs-compact.py: scripts/abtest failed: " + out.stderr.strip())
    for l in out.stdout.splitlines():
        label, u, p, a12, mag = l.split("\t")
        res[label] = (float(p), float(a12))
print()
print(f"{base} against each other strategy: A12 (p) on the first-bug iteration, then on the CPU seconds to it; below 0.5: {base} needs fewer")
print()
print("| bug | against | A12 iterations (p) | A12 CPU s (p) |")
print("|---|---|---|---|")
for b, s in labels:
    it = res.get(f"{b}|{s}|it")
    cp = res.get(f"{b}|{s}|cpu")
    show = lambda r: f"{r[1]:.2f} ({r[0]:.2g})" if r else "not measured"
    print(f"| {b} | {s} | {show(it)} | {show(cp)} |")
if guided:
    first_table()
if rates:
    rate_table()
