#!/usr/bin/env bash
# The library bug set (bugs/etcdraft/*.patch): for each patch, a copy of
# go.etcd.io/raft/v3 from the module cache with the patch applied, modelfuzz
# built against it (a temporary go.mod with a replace; the checkout's go.mod
# is never touched), then every strategy over several seeds, each campaign
# stopping at its first bug.
#
#   scripts/library-bugs.sh [SEEDS] [BUDGET] [BUG...]   (defaults: 3 seeds, 50000 iterations, every patch)
#
# A BUG may name a patch of a folder below bugs/etcdraft, e.g.
# oracles/progress-probe-next-at-match (the patches that break the progress
# oracles' invariants, bugs/etcdraft/oracles/README.md; "every patch" is
# the bug set's, bugs/etcdraft/*.patch).
#
# Environment:
#   STRATEGIES  the strategies to run (default "random trace line model"):
#               random, trace and line run --adapter etcdraft (line with the
#               coverage build, as make cover builds it); model runs
#               --model raft.tla --tlc inproc (with raft.tla's settings of
#               the adapter: RawNodes, every action);
#               spec runs --model etcdraft.tla (model guidance by etcd
#               raft's own spec, each execution's library trace validated
#               against it; docs/etcdraft.md for the settings it leaves out);
#               the online strategies pct, pctcp, pos, dpos, tapct and rounds
#               run --adapter etcdraft with their defaults (ONLINE_FLAGS adds
#               flags to them, e.g. "--depth 2"); model-pctcp and model-dpos
#               (model guidance whose fresh inputs PCTCP or d-POS builds)
#               run as model does; model-pctcp-bandit and model-dpos-bandit
#               are those with --energy bandit (each iteration's source
#               drawn by what each source found lately, fuzzer/bandit.go);
#               model-pctcp-tails and model-dpos-tails (model guidance
#               where the online strategy builds the tails of a third of
#               the mutants, from the cut at the parent's rarest state)
#               and model-reorder (model guidance where a third of the
#               mutants are ordering mutants: a deep deliver-one, a
#               starved process, a crash in a joint configuration's
#               window, mutate/order.go) run as model does, and so do
#               model-pctcp-genome and model-dpos-genome (model guidance
#               over the genomes of PCTCP's or d-POS's executions: every
#               input an online execution, a genome kept at new states and
#               mutated one choice at a time, guidance/genome.go).
#   SAME_SYSTEM 1: every strategy runs --model raft.tla --tlc inproc, so
#               that all of them test the same system (raft.tla's settings
#               of the adapter: RawNodes, every action) with the same
#               oracles (raft.tla's divergences and invariants), only the
#               strategy differing; model guidance's cost of measuring is
#               then every strategy's.
#   JOBS        campaigns run at once (default 1).
#   FIRST_SEED  the first seed (default 1): SEEDS seeds from it, so that a
#               strategy can be developed on other seeds than it is
#               measured on.
#   PARALLEL    each campaign's --parallel (default 1; the library sleeps
#               1 ms per traced receive under spec, which more overlap).
#   ORACLES     1: every campaign runs its whole budget (no --stop-on-bug)
#               and a third table gives, per bug and strategy, the first
#               iteration at which each kind of failure (spec-divergence,
#               divergence, model-invariant, safety, panic, ...) showed.
#   ENERGY      the guided campaigns' --energy (fixed, rare or bandit; default: run's)
#   GENERATE_FLAGS  flags of strategy generated (model guidance after the
#               inputs generated from raft.tla's paths), e.g. "--generate-depth 8"
#   MODEL_CONFIG  the model and generated strategies' --model-config (e.g. raft_reads.cfg;
#               default raft.tla's own raft.cfg)
#   RUN_FLAGS   flags added to every campaign (e.g. "--exec-timeout 60s"
#               on a loaded machine, where the default 10 s of wall time
#               per execution reports spurious hangs).
#   OUT         directory for the raw results and the table (default: a
#               temporary one, removed at the end).
#   TABLE_ONLY  1: build and run nothing, print the tables from the results
#               already in OUT (of a run stopped early: a campaign without
#               a result is "not run", and its bug's row says so).
#
# A patch may carry extra run flags on a header line "# run flags: ...".
# A bug may come with a hand-written reproducer, bugs/etcdraft/BUG.json,
# replayed with the flags of its patch's header line "# reproducer flags:
# ..." by the patched build (it must fail) and by the unpatched one (it must
# not): proof that a bug no strategy finds can be triggered.
#
# Prints a Markdown table: per bug and strategy, each seed's first-bug
# iteration ("-": none within BUDGET), how many seeds found it, the median
# over those that did, how many seeds found it within their first 20
# inputs (the random inputs every strategy starts from), and the kind of
# the first bug. A second table gives, per bug, whether any strategy found it
# and whether any seed found it early; where /usr/bin/time exists, a last
# one gives each campaign's CPU seconds (user + system), which with
# --stop-on-bug is the CPU it took to find its first bug.
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=3
budget=50000
if [[ $# -gt 0 ]]; then seeds=$1; shift; fi
if [[ $# -gt 0 ]]; then budget=$1; shift; fi
[[ $seeds =~ ^[0-9]+$ && $seeds -gt 0 ]] || { echo "$0: SEEDS must be a positive number, not '$seeds'" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ && $budget -gt 0 ]] || { echo "$0: BUDGET must be a positive number, not '$budget'" >&2; exit 2; }
strategies=${STRATEGIES:-random trace line model}
jobs=${JOBS:-1}
parallel=${PARALLEL:-1}
oracles=${ORACLES:-0}
table_only=${TABLE_ONLY:-0}
energy=${ENERGY:-}
early=20
online_flags=${ONLINE_FLAGS:-}
same_system=${SAME_SYSTEM:-0}
run_flags=${RUN_FLAGS:-}
first_seed=${FIRST_SEED:-1}
[[ $first_seed =~ ^[0-9]+$ ]] || { echo "$0: FIRST_SEED must be a number, not '$first_seed'" >&2; exit 2; }
last_seed=$((first_seed + seeds - 1))

bugs=("$@")
if [[ ${#bugs[@]} -eq 0 ]]; then
  for p in bugs/etcdraft/*.patch; do bugs+=("$(basename "$p" .patch)"); done
fi
for b in "${bugs[@]}"; do
  [[ -f bugs/etcdraft/$b.patch ]] || { echo "$0: no patch bugs/etcdraft/$b.patch" >&2; exit 2; }
done
for s in $strategies; do
  case $s in random|trace|line|model|spec|pct|pctcp|pos|dpos|tapct|rounds|model-pctcp|model-dpos|model-pctcp-bandit|model-dpos-bandit|model-pctcp-tails|model-dpos-tails|model-pctcp-genome|model-dpos-genome|model-reorder|generated) ;; *) echo "$0: unknown strategy '$s' (known: random trace line model spec pct pctcp pos dpos tapct rounds model-pctcp model-dpos model-pctcp-bandit model-dpos-bandit model-pctcp-tails model-dpos-tails model-pctcp-genome model-dpos-genome model-reorder generated)" >&2; exit 2;; esac
done

mod=$(go list -m -f '{{.Dir}}' go.etcd.io/raft/v3)
version=$(go list -m -f '{{.Version}}' go.etcd.io/raft/v3)
[[ -d $mod ]] || { echo "$0: go.etcd.io/raft/v3 is not in the module cache (run go mod download)" >&2; exit 1; }
[[ $version == v3.7.0 ]] || { echo "$0: the patches are against go.etcd.io/raft/v3 v3.7.0, go.mod has $version" >&2; exit 1; }

tmp=$(mktemp -d)
out=${OUT:-$tmp/out}
if [[ $table_only == 1 && -z ${OUT:-} ]]; then echo "$0: TABLE_ONLY=1 needs OUT, the directory of an earlier run's results" >&2; exit 2; fi
mkdir -p "$out"
for b in "${bugs[@]}"; do mkdir -p "$out/$(dirname "$b")" "$tmp/$(dirname "$b")"; done
trap 'rm -rf "$tmp"' EXIT

# build BUG: the patched module and the binaries built against it.
build() {
  local b=$1 d=$tmp/$1
  mkdir -p "$d"
  cp -r "$mod" "$d/raft"
  chmod -R u+w "$d/raft"
  if ! patch -d "$d/raft" -p1 --quiet --forward --batch --fuzz=0 < "bugs/etcdraft/$b.patch" > "$d/patch.log" 2>&1; then
    echo "$0: bugs/etcdraft/$b.patch does not apply to go.etcd.io/raft/v3 $version:" >&2
    cat "$d/patch.log" >&2
    exit 1
  fi
  cp go.mod "$d/go.mod"
  cp go.sum "$d/go.sum"
  go mod edit -modfile="$d/go.mod" -replace "go.etcd.io/raft/v3=$d/raft"
  go build -modfile="$d/go.mod" -tags with_tla -o "$d/modelfuzz" ./cmd/modelfuzz
  if [[ " $strategies " == *" line "* ]]; then
    go build -modfile="$d/go.mod" -cover -covermode=atomic \
      -coverpkg=go.etcd.io/raft/v3/...,github.com/modelfuzz/modelfuzz/cmd/modelfuzz \
      -o "$d/modelfuzz-cover" ./cmd/modelfuzz
  fi
}

# run BUG STRATEGY SEED: one campaign; writes "first kind" to a result file.
run() {
  local b=$1 s=$2 seed=$3 d=$tmp/$1 bin args flags
  bin=$d/modelfuzz
  case $s in
    model|model-pctcp|model-dpos|model-pctcp-tails|model-dpos-tails|model-pctcp-genome|model-dpos-genome|model-reorder) args=(--model raft.tla --tlc inproc --strategy "$s" ${MODEL_CONFIG:+--model-config "$MODEL_CONFIG"}) ;;
    model-pctcp-bandit|model-dpos-bandit) args=(--model raft.tla --tlc inproc --strategy "${s%-bandit}" --energy bandit ${MODEL_CONFIG:+--model-config "$MODEL_CONFIG"}) ;;
    generated) read -r -a args <<<"--model raft.tla --tlc inproc --strategy generated ${MODEL_CONFIG:+--model-config $MODEL_CONFIG} ${GENERATE_FLAGS:-}" ;;
    spec) args=(--model etcdraft.tla --strategy model) ;;
    line) bin=$d/modelfuzz-cover; args=(--adapter etcdraft --strategy line) ;;
    pct|pctcp|pos|dpos|tapct|rounds) read -r -a args <<<"--adapter etcdraft --strategy $s ${online_flags}" ;;
    *) args=(--adapter etcdraft --strategy "$s") ;;
  esac
  if [[ $same_system == 1 && $s != spec && ${args[1]} == etcdraft ]]; then
    args[0]=--model; args[1]=raft.tla; args=(--tlc inproc "${args[@]}")
  fi
  flags=$(sed -n 's/^# run flags: //p' "bugs/etcdraft/$b.patch" | head -1)
  if [[ -n $energy ]]; then flags="$flags --energy $energy"; fi
  flags="$flags $run_flags"
  # shellcheck disable=SC2086
  local stop=--stop-on-bug
  if [[ $oracles == 1 ]]; then stop=--stop-on-bug=false; fi
  # The campaign's CPU seconds (user + system), when /usr/bin/time is there.
  local timer=()
  if [[ -x /usr/bin/time ]]; then timer=(/usr/bin/time -f '%U %S' -o "$d/cpu-$s-$seed"); fi
  # shellcheck disable=SC2086
  "${timer[@]}" "$bin" run "${args[@]}" $flags --seed "$seed" --iterations "$budget" $stop \
    --minimize=false --json --log-level error --parallel "$parallel" \
    --corpus "$d/corpus-$s-$seed" --fresh > "$d/run-$s-$seed.json" 2> "$d/run-$s-$seed.err" || {
    echo "$0: $b $s seed $seed failed:" >&2
    cat "$d/run-$s-$seed.err" >&2
    return 1
  }
  rm -rf "$d/corpus-$s-$seed"
  local summary first kind
  summary=$(tail -n 1 "$d/run-$s-$seed.json")
  # The known disagreements of the spec with the library (docs/known.md)
  # are not bugs: they are kept apart, and the bugs alone are read below.
  if command -v jq > /dev/null; then
    jq -r '(.known // [])[] | "\(.known) \(.hits) \(.first_iteration)"' <<<"$summary" > "$out/$b.$s.$seed.known"
    summary=$(jq -c '{bugs: .bugs}' <<<"$summary")
  elif grep -q '"known":' <<<"$summary"; then
    echo "$0: jq is needed to read a summary with known disagreements" >&2
    return 1
  fi
  first=$(grep -o '"first_iteration":[0-9]*' <<<"$summary" | head -1 | cut -d: -f2 || true)
  kind=$(grep -o '"kind":"[a-z-]*"' <<<"$summary" | head -1 | cut -d'"' -f4 || true)
  if [[ $oracles == 1 ]]; then
    # The first bug of the campaign, and each kind's first iteration.
    first=$(grep -o '"first_iteration":[0-9]*' <<<"$summary" | cut -d: -f2 | sort -n | head -1 || true)
    kind=$(paste -d' ' <(grep -o '"kind":"[a-z-]*"' <<<"$summary" | cut -d'"' -f4) \
      <(grep -o '"first_iteration":[0-9]*' <<<"$summary" | cut -d: -f2) | sort -k2,2n | head -1 | cut -d' ' -f1 || true)
    paste -d' ' <(grep -o '"kind":"[a-z-]*"' <<<"$summary" | cut -d'"' -f4) \
      <(grep -o '"first_iteration":[0-9]*' <<<"$summary" | cut -d: -f2) |
      sort -k1,1 -k2,2n | awk '!seen[$1]++' > "$out/$b.$s.$seed.kinds"
  fi
  echo "${first:--} ${kind:--}" > "$out/$b.$s.$seed"
  if [[ -s $d/cpu-$s-$seed ]]; then
    awk '{printf "%.1f\n", $1 + $2}' "$d/cpu-$s-$seed" > "$out/$b.$s.$seed.cpu"
  fi
  tail -n 1 "$d/run-$s-$seed.json" > "$out/$b.$s.$seed.json"
}
export -f run
export tmp out budget parallel oracles energy online_flags run_flags same_system

if [[ $table_only != 1 ]]; then
for b in "${bugs[@]}"; do
  echo "building $b" >&2
  build "$b"
done
fi

# reproduce BUG: replays the bug's hand-written reproducer, if it has one.
# replay exits 3 when the execution fails, 0 when it passes, 1 when it
# could not run (modelfuzz replay --help).
reproduce() {
  local b=$1 r=bugs/etcdraft/$1.json flags patched clean pcode=0 ccode=0
  [[ -f $r ]] || { echo "none" > "$out/$b.repro"; return; }
  flags=$(sed -n 's/^# reproducer flags: //p' "bugs/etcdraft/$b.patch" | head -1)
  # shellcheck disable=SC2086
  "$tmp/$b/modelfuzz" replay $flags "$r" > "$tmp/$b.replay" 2>&1 || pcode=$?
  # shellcheck disable=SC2086
  "$tmp/unpatched" replay $flags "$r" > "$tmp/$b.replay-unpatched" 2>&1 || ccode=$?
  patched=$(grep -ao '^FAILURE at step [0-9]*: .*' "$tmp/$b.replay" | head -1 || true)
  clean=$(grep -ao '^FAILURE at step [0-9]*: .*' "$tmp/$b.replay-unpatched" | head -1 || true)
  if [[ $pcode == 3 && $ccode == 0 ]]; then
    echo "fails with the patch (${patched#FAILURE at }), passes without" > "$out/$b.repro"
  else
    echo "DOES NOT REPRODUCE: patched: exit $pcode, ${patched:-no failure}; unpatched: exit $ccode, ${clean:-no failure}" > "$out/$b.repro"
  fi
}
if [[ $table_only != 1 ]]; then
go build -tags with_tla -o "$tmp/unpatched" ./cmd/modelfuzz
for b in "${bugs[@]}"; do
  reproduce "$b"
done

# Strategy by strategy, in the order given: a run stopped early has the
# first strategies on every bug.
for s in $strategies; do
  for b in "${bugs[@]}"; do
    for seed in $(seq "$first_seed" "$last_seed"); do
      echo "$b $s $seed"
    done
  done
done | xargs -P "$jobs" -L 1 bash -c 'run "$0" "$1" "$2"'
fi
# result BUG STRATEGY SEED: the campaign's "first kind" ("not-run -" when
# it has none: a TABLE_ONLY table of a run stopped early).
result() {
  if [[ -f $out/$1.$2.$3 ]]; then cat "$out/$1.$2.$3"; else echo "not-run -"; fi
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

{
  if [[ $oracles == 1 ]]; then
    echo "go.etcd.io/raft/v3 $version, $seeds seeds, budget $budget iterations, first bug per campaign (each campaign ran its whole budget)"
  else
    echo "go.etcd.io/raft/v3 $version, $seeds seeds, budget $budget iterations, first bug per campaign (--stop-on-bug)"
  fi
  echo
  echo "| bug | strategy | first bug per seed | found | median | found in first $early | kind |"
  echo "|---|---|---|---|---|---|---|"
  for b in "${bugs[@]}"; do
    for s in $strategies; do
      row=(); found=(); e=0; kinds=(); missing=0
      for seed in $(seq "$first_seed" "$last_seed"); do
        read -r first kind < <(result "$b" "$s" "$seed")
        if [[ $first == not-run ]]; then missing=$((missing + 1)); row+=("?"); continue; fi
        row+=("$first")
        if [[ $first != - ]]; then
          found+=("$first"); kinds+=("$kind")
          if [[ $first -le $early ]]; then e=$((e + 1)); fi
        fi
      done
      m=$(printf '%s\n' "${found[@]}" | { grep -v '^$' || true; } | median)
      k=$(printf '%s\n' "${kinds[@]}" | { grep -v '^$' || true; } | sort -u | paste -sd, -)
      if [[ $missing == "$seeds" ]]; then
        echo "| $b | $s | not run | | | | |"
        continue
      fi
      [[ $missing == 0 ]] || m="$m ($missing not run: ?)"
      echo "| $b | $s | ${row[*]} | ${#found[@]}/$((seeds - missing)) | $m | $e/$((seeds - missing)) | ${k:--} |"
    done
  done
  echo
  echo "| bug | found by | found in first $early by | hand-written reproducer |"
  echo "|---|---|---|---|"
  for b in "${bugs[@]}"; do
    by=(); eby=()
    for s in $strategies; do
      for seed in $(seq "$first_seed" "$last_seed"); do
        read -r first _ < <(result "$b" "$s" "$seed")
        if [[ $first != - && $first != not-run ]]; then
          [[ " ${by[*]} " == *" $s "* ]] || by+=("$s")
          if [[ $first -le $early ]]; then [[ " ${eby[*]} " == *" $s "* ]] || eby+=("$s"); fi
        fi
      done
    done
    echo "| $b | ${by[*]:-none} | ${eby[*]:-none} | $(cat "$out/$b.repro" 2>/dev/null || echo "not run") |"
  done
  if compgen -G "$out/*.cpu" > /dev/null; then
    echo
    echo "CPU seconds of each campaign (user + system, from its start to its first bug, or its whole budget: \"-\" after the figure; \"?\": not measured)"
    echo
    echo "| bug | strategy | CPU s per seed | median CPU s to the first bug |"
    echo "|---|---|---|---|"
    for b in "${bugs[@]}"; do
      for s in $strategies; do
        row=(); found=()
        for seed in $(seq "$first_seed" "$last_seed"); do
          read -r first _ < <(result "$b" "$s" "$seed")
          c=$(cat "$out/$b.$s.$seed.cpu" 2>/dev/null || echo "?")
          if [[ $first == - ]]; then row+=("$c-"); else row+=("$c"); fi
          if [[ $first != - && $first != not-run && $c != "?" ]]; then found+=("$c"); fi
        done
        m=$(printf '%s\n' "${found[@]}" | { grep -v '^$' || true; } | median)
        echo "| $b | $s | ${row[*]} | $m |"
      done
    done
  fi
  if [[ $oracles == 1 ]]; then
    echo
    echo "Which oracle shows each bug: per kind of failure, the first iteration in each seed (\"-\": not within $budget)"
    echo
    echo "| bug | strategy | kind | first per seed | found | median |"
    echo "|---|---|---|---|---|---|"
    for b in "${bugs[@]}"; do
      for s in $strategies; do
        kinds=$(cat "$out/$b.$s".*.kinds 2>/dev/null | cut -d' ' -f1 | sort -u)
        [[ -n $kinds ]] || { echo "| $b | $s | none | | 0/$seeds | - |"; continue; }
        for k in $kinds; do
          row=(); found=()
          for seed in $(seq "$first_seed" "$last_seed"); do
            f=$(awk -v k="$k" '$1 == k {print $2}' "$out/$b.$s.$seed.kinds" 2>/dev/null)
            row+=("${f:--}")
            [[ -z $f ]] || found+=("$f")
          done
          m=$(printf '%s\n' "${found[@]}" | { grep -v '^$' || true; } | median)
          echo "| $b | $s | $k | ${row[*]} | ${#found[@]}/$seeds | $m |"
        done
      done
    done
  fi
} | tee "$out/table.md"
