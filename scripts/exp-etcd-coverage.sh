#!/usr/bin/env bash
# The ModelFuzz chapter's etcd coverage experiment at this machine's scale:
# abstract model states (and lines, unique traces) over iterations for the
# model, line, trace and random strategies on etcd raft (3 nodes), the same
# seeds for every strategy, from the coverage build (make cover).
# Usage: scripts/exp-etcd-coverage.sh [RUNS] [ITERATIONS] [OUT]
#   defaults: 5 runs, 10000 iterations, /tmp/exp-etcd
set -euo pipefail
runs=${1:-5}
iters=${2:-10000}
out=${3:-/tmp/exp-etcd}
make cover >/dev/null
GOCOVERDIR=$(mktemp -d) ./modelfuzz-cover compare --adapter etcdraft --model raft.tla \
	--strategies model,line,trace,random --runs "$runs" --iterations "$iters" --jobs 2 --out "$out" 2>/dev/null
python3 - "$out" <<'PY'
import json, statistics, sys
c = json.load(open(sys.argv[1] + "/results.json"))
mean = {s["name"]: {m: statistics.mean(r["final"][m] for r in s["runs"]) for m in s["runs"][0]["final"]} for s in c["strategies"]}
print("mean final coverage; ratio = model / strategy")
for m in ("model", "lines", "traces"):
    row = [f"{m:>7}:"]
    for s in ("model", "line", "trace", "random"):
        if s in mean and m in mean[s]:
            row.append(f"{s} {mean[s][m]:.0f} ({mean['model'][m] / mean[s][m]:.2f}x)")
    print("  ".join(row))
PY
