#!/usr/bin/env bash
# Runs every case of the TLA+ conformance suite (../shared/tla-examples)
# through `modelfuzz tlc check` and prints a table: TLC's distinct states and
# depth, ours, the time taken, and the time budget max(10 s, 4 x TLC's).
#
#   scripts/conformance.sh [FILTER]     # only cases whose module path contains FILTER
#
# Exits non-zero when a case that is not a documented gap (docs/tla-support.md)
# differs from TLC.
set -uo pipefail
cd "$(dirname "$0")/.."
suite=../shared/tla-examples
if [ ! -f "$suite/cases.tsv" ]; then
  echo "conformance suite not found at $suite (it lives in ../shared beside the repository); skipping"
  exit 0
fi
${GO_BUILD:-go build} -o /tmp/modelfuzz-conformance ./cmd/modelfuzz || exit 1
filter="${1:-}"
pass=0; fail=0; gap=0
printf '%-48s %10s %6s %10s %6s %8s %7s %s\n' CASE TLC_DIST DEPTH OURS DEPTH SECONDS BUDGET RESULT
while IFS=$'\t' read -r dir module cfg distinct total depth features notes runtime; do
  [ "$dir" = spec_dir ] && continue
  case "$module" in *"$filter"*) ;; *) continue ;; esac
  name="$(basename "$module" .tla)/$(basename "$cfg" .cfg)"
  IFS=: read -r h m s <<<"$runtime"
  budget=$(( (10#$h*3600 + 10#$m*60 + 10#$s) * 4 )); [ "$budget" -lt 10 ] && budget=10
  start=$(date +%s.%N)
  out=$(timeout $((budget * 3)) /tmp/modelfuzz-conformance tlc check "$suite/$module" --config "$suite/$cfg" --json 2>/dev/null | tail -1)
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  od=$(echo "$out" | sed -n 's/.*"distinct_states":\([0-9]*\).*/\1/p')
  oh=$(echo "$out" | sed -n 's/.*"depth":\([0-9]*\).*/\1/p')
  res=$(echo "$out" | sed -n 's/.*"result":"\([a-z-]*\)".*/\1/p')
  status=ok
  if [ "$od" != "$distinct" ] || [ "$oh" != "$depth" ]; then
    if grep -q "| \`$name\`" docs/tla-support.md 2>/dev/null; then status="gap (documented)"; gap=$((gap+1))
    else status="DIFFERS (${res:-timeout}$(echo "$out" | sed -n 's/.*"error":"\([^"]\{0,100\}\).*/: \1/p'))"; fail=$((fail+1)); fi
  elif (( $(echo "$secs > $budget" | bc) )); then status="ok, over budget"; pass=$((pass+1))
  else pass=$((pass+1)); fi
  printf '%-48s %10s %6s %10s %6s %8.2f %7s %s\n' "$name" "$distinct" "$depth" "${od:--}" "${oh:--}" "$secs" "$budget" "$status"
done < "$suite/cases.tsv"
echo "$pass passed, $fail failed, $gap skipped"
[ "$fail" -eq 0 ]
