#!/usr/bin/env bash
# The micro-benchmark's deep bug (m = 6 workers, n tasks, flush-before-last)
# found by model guidance alone and by strategy generated (the same loop,
# its session started with the inputs generated from the model's paths),
# back to back per seed: the iteration of the first bug (generation's
# executions included) and the CPU seconds of each campaign.
#
#   scripts/exp-generate-microbench.sh [TASKS] [SEEDS] [BUDGET] [STEPS]
#
# Defaults: 40 tasks, 5 seeds, 10000 iterations, 250 steps.
set -euo pipefail
cd "$(dirname "$0")/.."
tasks=${1:-40}; seeds=${2:-5}; budget=${3:-10000}; steps=${4:-250}
go build -o /tmp/modelfuzz-exp-gen ./cmd/modelfuzz
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-5s %-12s %s\n' STRATEGY SEED FIRST-BUG CPU-S
for seed in $(seq 1 "$seeds"); do
  for strategy in model generated; do
    extra=()
    [ "$strategy" = generated ] && extra=(--generate-depth 70 --generate-const MaxRequests=1)
    /usr/bin/time -f '%U %S' -o "$tmp/time" /tmp/modelfuzz-exp-gen run --adapter microbench --workers 6 --tasks "$tasks" \
      --inject flush-before-last --model microbench.tla --tlc inproc --strategy "$strategy" "${extra[@]}" \
      --steps "$steps" --seed "$seed" --iterations "$budget" --stop-on-bug --minimize=false --json --log-level error \
      --corpus "$tmp/$strategy-$seed" --fresh > "$tmp/out"
    first=$(tail -1 "$tmp/out" | sed -n 's/.*"kind":"panic","first_iteration":\([0-9]*\).*/\1/p')
    cpu=$(tail -1 "$tmp/time" | awk '{printf "%.2f", $1 + $2}')
    printf '%-10s %-5s %-12s %s\n' "$strategy" "$seed" "${first:--}" "$cpu"
  done
done
