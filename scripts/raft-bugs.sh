#!/usr/bin/env bash
# For each seeded bug of the etcd raft adapter, the iteration at which
# model and random guidance first find a bug, over several seeds.
#
#   scripts/raft-bugs.sh [SEEDS] [BUDGET]      (defaults: 5 seeds, 50000 iterations)
#
# Prints one row per (bug, strategy): each seed's first-bug iteration ("-":
# not found), how many seeds found it, and the median over those that did.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}; budget=${2:-50000}
go build -o /tmp/modelfuzz-raft ./cmd/modelfuzz
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-26s %-8s %-44s %-6s %s\n' BUG STRATEGY "FIRST BUG PER SEED" FOUND MEDIAN
for bug in forget-hardstate send-before-persist apply-uncommitted drop-snapshot-on-restart; do
  for strategy in model random; do
    row=(); found=()
    for seed in $(seq 1 "$seeds"); do
      out=$(/tmp/modelfuzz-raft run --model raft.tla --inject "$bug" --tlc inproc --strategy "$strategy" \
        --seed "$seed" --iterations "$budget" --stop-on-bug --minimize=false --json --log-level error \
        --corpus "$tmp/$bug-$strategy-$seed" --fresh | tail -1)
      first=$(echo "$out" | grep -o '"first_iteration":[0-9]*' | head -1 | cut -d: -f2)
      if [ -z "$first" ]; then row+=("-"); else row+=("$first"); found+=("$first"); fi
    done
    median="-"
    if [ "${#found[@]}" -gt 0 ]; then
      median=$(printf '%s\n' "${found[@]}" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}')
    fi
    printf '%-26s %-8s %-44s %-6s %s\n' "$bug" "$strategy" "${row[*]}" "${#found[@]}/$seeds" "$median"
  done
done
