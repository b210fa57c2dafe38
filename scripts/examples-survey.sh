#!/usr/bin/env bash
# Checks the exhaustive-search models of a tlaplus/Examples checkout with
# `modelfuzz tlc check` and prints a markdown table against the counts and
# verdicts TLC recorded in the manifests: spec/cfg, TLC's verdict, distinct
# and generated states and runtime, ours, the time we took.
#
#   scripts/examples-survey.sh EXAMPLES_DIR [MAX_TLC_SECONDS [TIMEOUT_SECONDS]]
#
# Models are those of every specifications/*/manifest.json whose mode is
# "exhaustive search" and whose recorded runtime is at most MAX_TLC_SECONDS
# (default 10), leaving out those of the conformance suite
# (../shared/tla-examples/cases.tsv, which TestConformance runs). Each runs
# from the checkout's root, as the Examples' CI runs TLC (some specs read
# files by paths relative to it), under a timeout (default 60 s).
set -uo pipefail
ex=${1:?usage: examples-survey.sh EXAMPLES_DIR [MAX_TLC_SECONDS [TIMEOUT_SECONDS]]}
max=${2:-10}
limit=${3:-60}
cd "$(dirname "$0")/.."
root=$PWD
suite=../shared/tla-examples/cases.tsv
bin=$(mktemp -d)/modelfuzz
go build -o "$bin" ./cmd/modelfuzz || exit 1
secs() { IFS=: read -r h m s <<<"$1"; echo $((10#$h * 3600 + 10#$m * 60 + 10#$s)); }
verdict() { # our exit code and result -> the manifest's words
  case "$1" in
    0) echo success ;;
    10) echo "assumption failure" ;;
    11|12|14) echo "safety failure" ;;
    13) if [ "$2" = liveness ]; then echo "liveness failure"; else echo "safety failure"; fi ;;
    124) echo timeout ;;
    *) echo "error ($1)" ;;
  esac
}
echo "| model | TLC: verdict, distinct, generated, time | ours: verdict, distinct, generated, time | agrees |"
echo "|---|---|---|---|"
same=0; total=0
for mf in "$ex"/specifications/*/manifest.json; do
  jq -r '.modules[] | .path as $m | .models[] | select(.mode == "exhaustive search")
         | [$m, .path, .runtime, .result, (.distinctStates // "" | tostring), (.totalStates // "" | tostring)] | @tsv' "$mf"
done | while IFS=$'\t' read -r module cfg runtime result distinct generated; do
  case "$runtime" in *:*:*) ;; *) continue ;; esac
  [ "$(secs "$runtime")" -le "$max" ] || continue
  if [ -f "$root/$suite" ] && cut -f3 "$root/$suite" | grep -qx "$cfg"; then continue; fi
  start=$(date +%s.%N)
  out=$(cd "$ex" && timeout "$limit" "$bin" tlc check "$module" --config "$cfg" --json 2>/dev/null | tail -1)
  code=$?
  took=$(echo "$(date +%s.%N) - $start" | bc)
  res=$(echo "$out" | jq -r '.result // ""' 2>/dev/null)
  od=$(echo "$out" | jq -r '.distinct_states // ""' 2>/dev/null)
  og=$(echo "$out" | jq -r '.states_generated // ""' 2>/dev/null)
  ov=$(verdict "$code" "$res")
  agree=yes
  [ "$ov" = "$result" ] || agree=no
  if [ "$result" = success ] && [ -n "$distinct" ] && { [ "$od" != "$distinct" ] || [ "$og" != "$generated" ]; }; then agree=no; fi
  if [ "$agree" = no ] && [ "$ov" != success ]; then
    err=$(echo "$out" | jq -r '.error // ""' 2>/dev/null | head -c 90 | tr '|\n' '/ ')
    [ -n "$err" ] && ov="$ov: $err"
  fi
  dir=${module#specifications/}; dir=${dir%%/*}
  printf '| %s/%s (%s) | %s, %s, %s, %s | %s, %s, %s, %.1f s | %s |\n' "$dir" "$(basename "$module" .tla)" "${cfg#specifications/$dir/}" \
    "$result" "${distinct:--}" "${generated:--}" "$runtime" "$ov" "${od:--}" "${og:--}" "$took" "$agree"
done
