#!/usr/bin/env bash
# Reproduces the trend of the ModelFuzz chapter's micro-benchmark figure:
# the iteration at which each strategy first finds the seeded concurrency
# bug (flush processed right before the last execute), over several seeds.
#
#   scripts/microbench-bugs.sh [WORKERS] [TASKS] [SEEDS] [BUDGET]
#
# Defaults: 6 workers, 20 tasks, 10 seeds, 30000 iterations per campaign.
# Prints one row per strategy with every seed's first-bug iteration ("-":
# not found within the budget) and the median (not-found counts as above
# the budget).
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-6}; tasks=${2:-20}; seeds=${3:-10}; budget=${4:-30000}
go build -o /tmp/modelfuzz-exp ./cmd/modelfuzz
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-8s %-70s %s\n' STRATEGY "FIRST-BUG ITERATION PER SEED (1..$seeds)" MEDIAN
for strategy in model trace random; do
  row=(); vals=()
  for seed in $(seq 1 "$seeds"); do
    out=$(/tmp/modelfuzz-exp run --adapter microbench --workers "$workers" --tasks "$tasks" \
      --inject flush-before-last --model microbench.tla --tlc inproc --strategy "$strategy" \
      --seed "$seed" --iterations "$budget" --stop-on-bug --minimize=false --json --log-level error \
      --corpus "$tmp/$strategy-$seed" --fresh | tail -1)
    first=$(echo "$out" | sed -n 's/.*"kind":"panic","first_iteration":\([0-9]*\).*/\1/p')
    if [ -z "$first" ]; then row+=("-"); vals+=($((budget + 1))); else row+=("$first"); vals+=("$first"); fi
  done
  median=$(printf '%s\n' "${vals[@]}" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}')
  [ "$(echo "$median > $budget" | bc)" = 1 ] && median="> $budget"
  printf '%-8s %-70s %s\n' "$strategy" "${row[*]}" "$median"
done
