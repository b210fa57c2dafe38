#!/usr/bin/env bash
# Measures what model guidance costs, back to back: the same
# campaign (fixed seed, N iterations, a fresh corpus in a temp dir) without
# a model and with it, in process and through the sidecar, on one core
# (taskset -c 0 when there is taskset; the sidecar inherits the core) and
# with --parallel 2 on two.
#
# Prints one line per campaign: executions per CPU-second (user+sys of
# modelfuzz and its sidecar, from /usr/bin/time), per wall-second, and a
# ratio: for one core, of the CPU figure to the unguided loop of the same
# adapter; for --parallel 2 (two cores), of the wall figure to the same
# campaign's on one core (how it scales; meaningful on an idle machine only).
# CPU time is the figure to compare on a busy machine; wall time is what a
# user sees.
#
#   ITER=5000 SEED=1 scripts/bench-guidance.sh            all campaigns
#   ONLY='raft-inproc raft-unguided' scripts/bench-guidance.sh
#   CPUPROFILE=DIR scripts/bench-guidance.sh              a CPU profile per campaign in DIR
#   SPEC_ITER=50 ...       iterations of the etcdraft.tla campaign (trace validation, slow)
#   MICRO_ITER=50000 ...   iterations of the micro-benchmark's campaigns
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${ITER:-5000}
SEED=${SEED:-1}
SPEC_ITER=${SPEC_ITER:-50}
MICRO_ITER=${MICRO_ITER:-50000}
ONLY=${ONLY:-}
CPUPROFILE=${CPUPROFILE:-}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/modelfuzz" ./cmd/modelfuzz
go build -tags with_tla -o "$work/modelfuzz-tla" ./cmd/modelfuzz
one=()
command -v taskset >/dev/null && one=(taskset -c 0)
[ -x /usr/bin/time ] || { echo "bench-guidance.sh needs /usr/bin/time (GNU time)" >&2; exit 1; }

declare -A cpurate wallrate
printf '%-22s %6s %9s %9s %9s %s\n' campaign iter cpu_s exec/cpu_s exec/wall_s ratio
# run NAME BASE-NAME BIN CORES ITER ARGS...
run() {
	local name=$1 ref=$2 bin=$3 cores=$4 iter=$5
	shift 5
	if [ -n "$ONLY" ] && ! [[ " $ONLY " == *" $name "* ]]; then
		return
	fi
	local pre=("${one[@]}") prof=()
	[ "$cores" = 2 ] && pre=()
	[ -n "$CPUPROFILE" ] && prof=(--cpuprofile "$CPUPROFILE/$name.prof")
	/usr/bin/time -f '%U %S %e' -o "$work/time" "${pre[@]}" "$work/$bin" run "$@" \
		--seed "$SEED" --iterations "$iter" --corpus "$work/c-$name" --json --log-level error \
		"${prof[@]}" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	rm -rf "$work/c-$name"
	read -r user sys wall <"$work/time"
	local iters
	iters=$(tail -n 1 "$work/out" | sed -n 's/.*"iterations":\([0-9]*\).*/\1/p')
	local cpu rate wrate
	cpu=$(echo "$user + $sys" | bc)
	rate=$(echo "scale=1; $iters / $cpu" | bc)
	wrate=$(echo "scale=1; $iters / $wall" | bc)
	cpurate[$name]=$rate
	wallrate[$name]=$wrate
	local ratio=-
	if [ "$cores" = 2 ] && [ -n "${wallrate[$ref]:-}" ]; then
		ratio="$(echo "scale=2; $wrate / ${wallrate[$ref]}" | bc) (wall, of $ref)"
	elif [ "$ref" != - ] && [ -n "${cpurate[$ref]:-}" ]; then
		ratio="$(echo "scale=2; $rate / ${cpurate[$ref]}" | bc) (cpu, of $ref)"
	fi
	printf '%-22s %6d %9.2f %9.1f %9.1f %s\n' "$name" "$iters" "$cpu" "$rate" "$wrate" "$ratio"
}

raft=(--adapter etcdraft)
run raft-unguided - modelfuzz 1 "$ITER" "${raft[@]}" --strategy random --parallel 1
run raft-inproc raft-unguided modelfuzz 1 "$ITER" "${raft[@]}" --model raft.tla --tlc inproc --parallel 1
run raft-sidecar raft-unguided modelfuzz 1 "$ITER" "${raft[@]}" --model raft.tla --parallel 1
run raft-random-inproc raft-unguided modelfuzz 1 "$ITER" "${raft[@]}" --strategy random --model raft.tla --tlc inproc --parallel 1
run raft-random-sidecar raft-unguided modelfuzz 1 "$ITER" "${raft[@]}" --strategy random --model raft.tla --parallel 1
# Two cores: the figure to compare is wall time (CPU time adds both cores).
run raft-unguided-p2 raft-unguided modelfuzz 2 "$ITER" "${raft[@]}" --strategy random --parallel 2
run raft-inproc-p2 raft-inproc modelfuzz 2 "$ITER" "${raft[@]}" --model raft.tla --tlc inproc --parallel 2
run raft-sidecar-p2 raft-sidecar modelfuzz 2 "$ITER" "${raft[@]}" --model raft.tla --parallel 2
# etcd raft's own spec, each execution's trace validated (a with_tla build).
run raft-etcdraft.tla raft-unguided modelfuzz-tla 1 "$SPEC_ITER" "${raft[@]}" --model etcdraft.tla --parallel 1
micro=(--adapter microbench)
run micro-unguided - modelfuzz 1 "$MICRO_ITER" "${micro[@]}" --strategy random --parallel 1
run micro-inproc micro-unguided modelfuzz 1 "$MICRO_ITER" "${micro[@]}" --model microbench.tla --tlc inproc --parallel 1
run micro-sidecar micro-unguided modelfuzz 1 "$MICRO_ITER" "${micro[@]}" --model microbench.tla --parallel 1
