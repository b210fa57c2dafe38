#!/usr/bin/env bash
# Which functions of go.etcd.io/raft/v3 a random campaign on the etcdraft
# adapter never reaches, from the coverage build (make cover) and
# run --uncovered.
#
#   scripts/campaign-uncovered.sh [ITERATIONS] [-- extra run flags]   (default 10000)
#
# e.g. scripts/campaign-uncovered.sh 2000 -- --prevote --checkquorum
#
# Prints the campaign's lines_covered, then the report: totals (functions,
# statements and lines reached), the functions never reached by file and
# line, and the partially covered ones, lowest coverage first.
set -euo pipefail
cd "$(dirname "$0")/.."
n=10000
if [[ $# -gt 0 && $1 != -- ]]; then
  n=$1
  shift
fi
if [[ $# -gt 0 ]]; then
  if [[ $1 != -- ]]; then
    echo "usage: $0 [ITERATIONS] [-- extra run flags]" >&2
    exit 2
  fi
  shift
fi
[[ $n =~ ^[0-9]+$ ]] || { echo "$0: ITERATIONS must be a number, not '$n'" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory cover >&2
GOCOVERDIR="$tmp" ./modelfuzz-cover run --adapter etcdraft --strategy random --iterations "$n" --fresh \
  --corpus "$tmp/corpus" --minimize=false --json --log-level error --uncovered "$tmp/uncovered.txt" "$@" > "$tmp/run.json"
summary=$(tail -n 1 "$tmp/run.json")
lines=$(sed -n 's/.*"lines_covered":\([0-9]*\).*/\1/p' <<<"$summary")
echo "lines_covered: ${lines:-?} ($n iterations)"
echo
cat "$tmp/uncovered.txt"
