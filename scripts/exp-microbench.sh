#!/usr/bin/env bash
# The ModelFuzz chapter's micro-benchmark experiment at this machine's
# scale: iterations to the first bug (the seeded flush-before-last crash)
# for m = 6 workers and n tasks, per strategy, with the same seeds.
# Usage: scripts/exp-microbench.sh [RUNS] [BUDGET] [OUT] [TASKS...]
#   defaults: 10 runs, 30000 iterations, /tmp/exp-microbench, n = 10 20 30 40
# Each n writes a compare report (OUT/tasks-N/report.html, first-bug.png);
# the table at the end summarizes them. ENERGY=fixed|rare sets the
# campaigns' --energy (default: run's, rare). STRATEGIES sets the compared
# strategies (default model,trace,random; e.g. model,random,trace,pctcp,tapct,pos,rounds).
# JOBS sets compare's --jobs, the campaigns at once (default 2). EXTRA adds
# flags to every campaign (e.g. EXTRA="--steps 250": an online execution
# schedules one event a step, so 250 steps give it the receipts of a
# random input's 50 deliver(t) steps). The table gives each seed's
# first-bug iteration ("-": none within the budget), the median over the
# seeds (a seed that found none counts as above the budget), found/seeds.
set -euo pipefail
energy=()
[ -z "${ENERGY:-}" ] || energy=(--energy "$ENERGY")
strategies=${STRATEGIES:-model,trace,random}
jobs=${JOBS:-2}
read -r -a extra <<<"${EXTRA:-}"
runs=${1:-10}
budget=${2:-30000}
out=${3:-/tmp/exp-microbench}
shift $(($# < 3 ? $# : 3))
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || tasks=(10 20 30 40)
bin=$(mktemp -d)/modelfuzz
go build -o "$bin" ./cmd/modelfuzz
mkdir -p "$out"
for n in "${tasks[@]}"; do
	"$bin" compare --adapter microbench --workers 6 --tasks "$n" --inject flush-before-last \
		--model microbench.tla --strategies "$strategies" --runs "$runs" --iterations "$budget" \
		--stop-on-bug --jobs "$jobs" "${energy[@]}" "${extra[@]}" --out "$out/tasks-$n" 2>/dev/null >"$out/tasks-$n.txt"
done
python3 - "$out" "$budget" "$strategies" "${tasks[@]}" <<'PY'
import json, statistics, sys
out, budget, names, tasks = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4:]
others = [s for s in names if s != "model"]
print(f"first-bug iterations, median over runs (found/runs), budget {budget}; A12 of model vs other (lower = model sooner)")
print(f"{'n':>3} " + " ".join(f"{s:>16}" for s in names) + "   " + "  ".join(f"A12 model-{s}" for s in others))
seeds = {}
for n in tasks:
    c = json.load(open(f"{out}/tasks-{n}/results.json"))
    cells = {}
    for s in c["strategies"]:
        runs = sorted(s["runs"], key=lambda r: r["seed"])
        its = [r["first_bug"] if r["first_bug"] is not None else budget + 1 for r in runs]
        found = sum(r["first_bug"] is not None for r in runs)
        med = statistics.median(its)
        cells[s["name"]] = (f">{budget}" if med > budget else f"{med:.0f}") + f" ({found}/{len(its)})"
        seeds[(n, s["name"])] = " ".join("-" if r["first_bug"] is None else str(r["first_bug"]) for r in runs)
    a12 = {t["b"]: t["a12"] for t in c["tests"] if t["measure"] == "first bug"}
    fmt = lambda k: f"{a12[k]:.2f}" if k in a12 else "-"
    print(f"{n:>3} " + " ".join(f"{cells.get(s, ''):>16}" for s in names) + "   " + "  ".join(f"{fmt(s):>{len('A12 model-' + s)}}" for s in others))
print()
print("first bug per seed (seeds in order; -: none within the budget)")
for n in tasks:
    for s in names:
        if (n, s) in seeds:
            print(f"{n:>3} {s:<8} {seeds[(n, s)]}")
PY
